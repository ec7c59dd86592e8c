"""Diagrams of a plan's GPU capacity: cluster -> pools -> GPUs -> slices, as Mermaid text, SVG or PNG.

The diagram is drawn from the pools' capacity records (:mod:`gpu_components.capacity`): those of the node-pool
components a program created (``records``, :attr:`~gpu_components.plan.project.ProjectPlan.pools`), or else those in
a plan's ``gpuPools`` output, so it can be made from a JSON plan file with that output as well as from a fresh plan:

- :func:`to_mermaid`: a Mermaid ``flowchart LR`` that GitHub renders in Markdown (PR comments, READMEs).
- :func:`to_svg`: a standalone SVG drawn by this module (no dependency, no browser): one column per level.
- :func:`to_png`: the same layout rasterised with Pillow (optional dependency, extra ``diagram``).

All three are deterministic: the same records give the same bytes.

A DRA pool (a record with ``draDevices``): its GPU box says what the DRA driver publishes per node (``DRA driver
publishes 56 x mig.nvidia.com/1g.10gb``; an extended resource its DeviceClass serves too, ``1 x nvidia.com/gpu
through gpu.nvidia.com``), and its slices take their memory from
the devices' MIG profiles. Given ``claims`` (:func:`~gpu_components.plan.capacity.claim_records` of the plan's
resources), each pool's box lists the resource claims its workloads make (``claim ml/h100-mig-1g: 2 x
mig.nvidia.com``), as their ``nodeSelector`` names the pool.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape

from gpu_components.capacity import PoolCapacity
from gpu_components.plan.capacity import (
    ISOLATION_TEXT,
    ClaimRecord,
    capacity_records,
    dra_device_memory_gb,
    per_node_text,
)

__all__ = ["Box", "DiagramError", "Layout", "layout", "to_mermaid", "to_png", "to_svg"]

_LINE_HEIGHT = 16
_CHAR_WIDTH = 7.2
"""Approximate advance of one character of a 12 px sans-serif font, for box widths."""
_PAD = 8
_COLUMN_GAP = 48
_ROW_GAP = 12
_FILL = {"cluster": "#e8eaf6", "pool": "#e3f2fd", "gpus": "#e8f5e9", "slices": "#fff8e1"}


class DiagramError(RuntimeError):
    """A diagram cannot be made (e.g. PNG without Pillow)."""


@dataclass(frozen=True)
class _Node:
    id: str
    level: str
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Box:
    """A laid-out node: position and size in pixels, text lines, level (``cluster``, ``pool``, ``gpus``,
    ``slices``)."""

    id: str
    level: str
    lines: tuple[str, ...]
    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Layout:
    """Boxes, edges (pairs of box ids) and the canvas size of a diagram."""

    boxes: tuple[Box, ...]
    edges: tuple[tuple[str, str], ...]
    width: float
    height: float


def _claim_lines(claims: Iterable[ClaimRecord]) -> dict[str, list[str]]:
    """Pool name -> one line per claim its workloads make: ``claim <ns>/<name>: <count> x <DeviceClass>`` (the
    requests joined with ``, ``)."""
    lines: dict[str, list[str]] = {}
    for claim in claims:
        asks = ", ".join(f"{request.count} x {request.device_class}" for request in claim.requests)
        for pool in claim.pools:
            lines.setdefault(pool, []).append(f"claim {claim.name}: {asks}")
    return lines


def _graph(
    title: str, records: Mapping[str, PoolCapacity], claims: Iterable[ClaimRecord] = ()
) -> tuple[list[_Node], list[tuple[str, str]]]:
    """The diagram's nodes and edges: the cluster, then per pool its node (with its workloads' claims), GPU and
    slice nodes."""
    claimed = _claim_lines(claims)
    nodes = [_Node("cluster", "cluster", (title, f"{len(records)} GPU pool(s)"))]
    edges: list[tuple[str, str]] = []
    for index, (name, record) in enumerate(records.items()):
        pool, gpus = f"p{index}", f"p{index}g"
        spot = ", spot" if record["spot"] else ""
        types, size = record["instanceType"], f"{record['minNodes']}..{record['maxNodes']} nodes"
        if "provisioning" in record:
            provisioning = record["provisioning"]
            more = len(provisioning["allowedTypes"]) - 1
            types = f"{provisioning['provisioner']}: {types}" + (f" +{more} types" if more else "")
            size += f", at most {provisioning['maxGpus']} GPUs"
        nodes.append(_Node(pool, "pool", (f"pool {name}", f"{types}{spot}", size, *claimed.get(name, []))))
        offers = "node advertises " + ", ".join(
            f"{per_node_text(record, u['perNode'])} x {u['name']}" for u in record["advertises"]
        )
        devices = record.get("draDevices", {})
        if devices:
            offers = f"{record['devicePlugin']} publishes " + ", ".join(
                [
                    *(f"{per_node_text(record, count)} x {device}" for device, count in devices.items()),
                    *(
                        f"{per_node_text(record, u['perNode'])} x {u['name']} through {u['through']}"
                        for u in record["advertises"]
                        if "through" in u
                    ),
                ]
            )
        nodes.append(
            _Node(
                gpus,
                "gpus",
                (
                    f"{per_node_text(record, record['gpusPerNode'])} x {record['gpuModel']} "
                    f"({record['gpuMemoryGb']:g} GB) per node",
                    offers,
                ),
            )
        )
        edges += [("cluster", pool), (pool, gpus)]
        for number, lines in enumerate(_slices(record)):
            slice_id = f"p{index}s{number}"
            nodes.append(_Node(slice_id, "slices", lines))
            edges.append((gpus, slice_id))
    return nodes, edges


def _slices(record: PoolCapacity) -> list[tuple[str, ...]]:
    """One slice node per MIG profile (or one for whole GPUs): what each GPU is split into and how isolated it is."""
    isolation = ISOLATION_TEXT.get(record["isolation"], record["isolation"])
    sharing = ""
    shared_by = max((unit["sharedBy"] for unit in record["advertises"]), default=1)
    if record["sharing"] != "none":
        sharing = f" x {shared_by} {'MPS clients' if record['sharing'] == 'mps' else 'time-sliced replicas'}"
    if not record["mig"]:
        return [(f"whole GPU{sharing}", isolation)]
    result: list[tuple[str, ...]] = []
    for profile, count in record["mig"].items():
        memory = next((unit["memoryGb"] for unit in record["advertises"] if unit["device"] == f"MIG {profile}"), None)
        if memory is None and record.get("draDevices"):
            memory = dra_device_memory_gb(record, f"mig.nvidia.com/{profile}")
        size = f" ({memory:g} GB)" if memory is not None else ""
        result.append((f"{count} x MIG {profile}{size} per GPU{sharing}", isolation))
    return result


def _records(plan_outputs: Mapping[str, Any], records: Mapping[str, PoolCapacity] | None) -> Mapping[str, PoolCapacity]:
    return capacity_records(plan_outputs) if records is None else records


def to_mermaid(
    title: str,
    outputs: Mapping[str, Any],
    *,
    records: Mapping[str, PoolCapacity] | None = None,
    claims: Iterable[ClaimRecord] = (),
) -> str:
    """A Mermaid ``flowchart LR`` of the plan (``title`` labels the cluster node), ending with a newline.

    The pools are ``records`` when given (pool name -> capacity record), else those of the ``gpuPools`` output.
    Node ids are positional (``cluster``, ``p0``, ``p0g``, ``p0s0``); labels are quoted, with ``<br>`` between
    lines and Mermaid's special characters escaped as HTML entities.
    """
    nodes, edges = _graph(title, _records(outputs, records), claims)
    lines = ["flowchart LR"]
    lines += [f'    {node.id}["{"<br>".join(_mermaid_text(line) for line in node.lines)}"]' for node in nodes]
    lines += [f"    {a} --> {b}" for a, b in edges]
    lines += [f"    class {node.id} {node.level}" for node in nodes]
    lines += [f"    classDef {level} fill:{fill},stroke:#555" for level, fill in _FILL.items()]
    return "\n".join(lines) + "\n"


def _mermaid_text(text: str) -> str:
    return re.sub(r'["<>#]', lambda match: f"#{ord(match.group(0))};", text)


def layout(
    title: str,
    outputs: Mapping[str, Any],
    *,
    records: Mapping[str, PoolCapacity] | None = None,
    claims: Iterable[ClaimRecord] = (),
) -> Layout:
    """Place the diagram's boxes: four columns (cluster, pools, GPUs, slices), each pool's row as tall as its
    slices, parents centred on their children (pools as :func:`to_mermaid` finds them)."""
    nodes, edges = _graph(title, _records(outputs, records), claims)
    by_level: dict[str, list[_Node]] = {level: [] for level in _FILL}
    for node in nodes:
        by_level[node.level].append(node)
    widths = {level: max((_width(n.lines) for n in members), default=0.0) for level, members in by_level.items()}
    xs: dict[str, float] = {}
    x = float(_PAD)
    for level in _FILL:
        xs[level] = x
        x += widths[level] + _COLUMN_GAP
    boxes: dict[str, Box] = {}
    y = float(_PAD)
    children: dict[str, list[str]] = {}
    for a, b in edges:
        children.setdefault(a, []).append(b)
    lookup = {node.id: node for node in nodes}
    for node in by_level["slices"]:
        height = _height(node.lines)
        boxes[node.id] = Box(node.id, "slices", node.lines, xs["slices"], y, widths["slices"], height)
        y += height + _ROW_GAP
    for level in ("gpus", "pool", "cluster"):
        for node in by_level[level]:
            kids = [boxes[kid] for kid in children.get(node.id, []) if kid in boxes]
            height = _height(node.lines)
            if kids:
                centre = (kids[0].y + kids[-1].y + kids[-1].height) / 2
            else:
                centre = y + height / 2
                y += height + _ROW_GAP
            boxes[node.id] = Box(
                node.id, level, lookup[node.id].lines, xs[level], centre - height / 2, widths[level], height
            )
    width = x - _COLUMN_GAP + _PAD
    height = max(box.y + box.height for box in boxes.values()) + _PAD
    ordered = tuple(boxes[node.id] for node in nodes)
    return Layout(ordered, tuple(edges), round(width, 1), round(height, 1))


def _width(lines: tuple[str, ...]) -> float:
    return round(max(len(line) for line in lines) * _CHAR_WIDTH + 2 * _PAD, 1)


def _height(lines: tuple[str, ...]) -> float:
    return float(len(lines) * _LINE_HEIGHT + 2 * _PAD)


def to_svg(
    title: str,
    outputs: Mapping[str, Any],
    *,
    records: Mapping[str, PoolCapacity] | None = None,
    claims: Iterable[ClaimRecord] = (),
) -> str:
    """The diagram as a standalone SVG document (UTF-8 text, ending with a newline; pools as :func:`to_mermaid`)."""
    plan = layout(title, outputs, records=records, claims=claims)
    boxes = {box.id: box for box in plan.boxes}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{plan.width:g}" height="{plan.height:g}" '
        f'viewBox="0 0 {plan.width:g} {plan.height:g}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">',
        f'<rect width="{plan.width:g}" height="{plan.height:g}" fill="#ffffff"/>',
    ]
    for a, b in plan.edges:
        start, end = boxes[a], boxes[b]
        x1, y1 = start.x + start.width, start.y + start.height / 2
        x2, y2 = end.x, end.y + end.height / 2
        middle = (x1 + x2) / 2
        parts.append(
            f'<path d="M{x1:g},{y1:g} C{middle:g},{y1:g} {middle:g},{y2:g} {x2:g},{y2:g}" '
            'fill="none" stroke="#555" stroke-width="1.2"/>'
        )
    for box in plan.boxes:
        parts.append(
            f'<rect x="{box.x:g}" y="{box.y:g}" width="{box.width:g}" height="{box.height:g}" rx="6" '
            f'fill="{_FILL[box.level]}" stroke="#555"/>'
        )
        for number, line in enumerate(box.lines):
            baseline = box.y + _PAD + (number + 1) * _LINE_HEIGHT - 4
            weight = ' font-weight="bold"' if number == 0 else ""
            parts.append(f'<text x="{box.x + _PAD:g}" y="{baseline:g}"{weight}>{escape(line)}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def to_png(
    title: str,
    outputs: Mapping[str, Any],
    *,
    records: Mapping[str, PoolCapacity] | None = None,
    claims: Iterable[ClaimRecord] = (),
) -> bytes:
    """The diagram as PNG bytes, drawn with Pillow's default font (install the ``diagram`` extra; pools as
    :func:`to_mermaid`).

    Raises:
        DiagramError: Pillow is not installed.
    """
    try:
        from PIL import Image, ImageDraw, ImageFont  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise DiagramError(
            "PNG diagrams need Pillow: pip install 'gpu-components[diagram]' (or write an .svg instead)"
        ) from None
    plan = layout(title, outputs, records=records, claims=claims)
    boxes = {box.id: box for box in plan.boxes}
    image = Image.new("RGB", (int(plan.width) + 1, int(plan.height) + 1), "white")
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=12)
    for a, b in plan.edges:
        start, end = boxes[a], boxes[b]
        draw.line(
            [(start.x + start.width, start.y + start.height / 2), (end.x, end.y + end.height / 2)],
            fill="#555555",
            width=1,
        )
    for box in plan.boxes:
        draw.rounded_rectangle(
            [box.x, box.y, box.x + box.width, box.y + box.height], radius=6, fill=_FILL[box.level], outline="#555555"
        )
        for number, line in enumerate(box.lines):
            draw.text((box.x + _PAD, box.y + _PAD + number * _LINE_HEIGHT), line, fill="black", font=font)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=False)
    return buffer.getvalue()
