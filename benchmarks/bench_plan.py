"""Offline-plan benchmark: example stacks, a bare-Pulumi baseline, and a 3-cloud fleet of N pools per cloud.

Run from the repository root (``make bench``, or ``.venv/bin/python benchmarks/bench_plan.py``). In one run, on one
machine, it measures:

1. **Example stacks.** ``gpu-components plan <stack> --format json`` for every ``stacks/Pulumi.<stack>.yaml``, each
   as a whole new process (interpreter start, imports, validation, the plan, rendering); median wall time of
   ``--runs`` runs, and the process's peak resident memory.
2. **Bare baseline.** The same resources, with the same inputs, registered by a bare Pulumi program without our
   components (no validation, no rendering, no component resources): each recorded custom resource, provider and
   remote component created through its provider SDK class (``aws.eks.NodeGroup(name, instance_types=...)``), as
   a hand-written program would, with its recorded inputs as plain values (falling back to a raw
   ``CustomResource`` when the class refuses them; the child reports how many were typed), under the same mocks
   and runner, also as a whole process. Reported as our time / bare time.
3. **Fleet.** One program with three clusters (AWS, Azure, GCP; each cloud's example cluster config) of N GPU pools
   each, N in ``--sizes`` (default 1, 10, 100), the pools cycling through that cloud's example pools; as a whole
   process, median of ``--fleet-runs`` runs; wall time, peak memory, resources registered, the time per added
   pool between sizes (equal slopes = linear growth), and the bare replay of the same fleet plan. A cloud whose
   adapter is not registered in ``gpu_components.cluster.ADAPTERS`` is skipped with a note.
4. **Each cloud alone.** The fleet program with one cloud's cluster and the largest N, and its bare replay.

Targets (issue 7): within 1.3x of the bare baseline (stacks and fleets); linear growth in N; N = 100 pools per
cloud under 10 s and 500 MB (checked for the three-cloud program and for each cloud alone).
Each measured process runs this script in ``--child`` mode, which prints one JSON line (resources registered,
peak RSS from ``resource.getrusage``); wall time is measured around the process by the parent.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import platform
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET_RATIO = 1.3
TARGET_SECONDS = 10.0
TARGET_MB = 500.0
FLEET_STACKS = {"aws": "aws-eks", "azure": "azure-aks", "gcp": "gcp-gke"}
"""Cloud -> the example stack whose cluster config and pools the fleet reuses."""
FLEET_PREFIX = {"aws": "eks", "azure": "aks", "gcp": "gke"}
"""Cloud -> the prefix of its fleet pool names (pool and sample Job names must be unique in the program)."""
CONFIG_NAMESPACE = "gpu-components"


# ------------------------------------------------------------------------------------------------ child processes


def _peak_mb() -> float:
    """Peak resident set size of this process in MB (Linux reports KB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024) if sys.platform == "darwin" else peak / 1024


def _child_stack(stack: str) -> dict[str, Any]:
    """What ``gpu-components plan STACK --format json`` does, in this process."""
    from gpu_components import program
    from gpu_components.plan import load_stack, run_program, to_json

    project, config = load_stack(ROOT, stack)
    plan = run_program(program.main, project=project, stack=stack, config=config)
    to_json(plan)
    return {"resources": len(plan.resources)}


def _module_of(type_token: str) -> str | None:
    """The Python SDK module a hand-written program would import for a type token (best effort)."""
    package, _, rest = type_token.partition(":")
    module = rest.partition(":")[0]
    if package == "pulumi":
        provider = rest.partition(":")[2]  # pulumi:providers:kubernetes -> pulumi_kubernetes
        return "pulumi_" + provider.replace("-", "_") if module == "providers" else None
    base = "pulumi_" + package.replace("-", "_")
    if module in ("", "index"):
        return base
    parts = [part.split(".")[0] for part in module.split("/")]
    # Kubernetes modules are group/version packages (core/v1); elsewhere the part after "/" names a file.
    return ".".join([base, *(parts if package == "kubernetes" else parts[:1])])


def _child_bare(plan_file: str) -> dict[str, Any]:
    """Register every custom resource, provider and remote component of a recorded plan directly, with its
    recorded inputs (the bare baseline), under the same mocks and runner."""
    import pulumi

    from gpu_components.plan import run_program

    document = json.loads(Path(plan_file).read_text())
    resources = document["resources"]
    for module in sorted({m for r in resources if (m := _module_of(r["type"])) is not None}):
        with contextlib.suppress(ImportError):
            importlib.import_module(module)
    by_urn = {r["urn"]: r for r in resources}
    ours = {r["urn"] for r in resources if r["type"].startswith("gpu-components:")}

    typed: list[str] = []

    def program() -> None:
        registered: dict[str, pulumi.Resource] = {}

        def register(record: Mapping[str, Any]) -> pulumi.Resource | None:
            urn = record["urn"]
            if urn in ours:
                return None
            if urn in registered:
                return registered[urn]
            parent_urn = record.get("parent")
            while parent_urn in ours:
                parent_urn = by_urn[parent_urn].get("parent")
            parent = register(by_urn[parent_urn]) if parent_urn in by_urn else None
            opts = pulumi.ResourceOptions(parent=parent)
            inputs = dict(record["inputs"])
            created = _typed(record["type"], record["name"], inputs, opts)
            if created is not None:
                typed.append(urn)
            elif record["type"].startswith("pulumi:providers:"):
                created = pulumi.ProviderResource(record["type"].split(":")[2], record["name"], inputs, opts)
            elif record["custom"]:
                created = pulumi.CustomResource(record["type"], record["name"], inputs, opts)
            else:
                created = pulumi.ComponentResource(record["type"], record["name"], inputs, opts, remote=True)
            registered[urn] = created
            return created

        for record in resources:
            register(record)

    plan = run_program(program, project=document["project"], stack=document["stack"], config=_stack_config(document))
    return {"resources": len(plan.resources), "typed": len(typed)}


def _snake(name: str) -> str:
    """A camelCase input name in the SDK's snake_case, acronyms as one word (``osDiskSizeGB``: ``os_disk_size_gb``,
    ``nodePublicIPTags``: ``node_public_ip_tags``)."""
    words = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", name)
    return re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", words).lower()


def _keyword(name: str) -> str:
    """The SDK's keyword for an input: snake_case, with a trailing ``_`` where that would clash with the
    constructor's own ``resource_name`` and ``opts`` (as the SDK generator does: ``resourceName`` is
    ``resource_name_`` on pulumi-azure-native's ``ManagedCluster``)."""
    snake = _snake(name)
    return snake + "_" if snake in ("resource_name", "opts") else snake


def _typed(type_token: str, name: str, inputs: dict[str, Any], opts: Any) -> Any:
    """The resource created through its provider SDK class, as a hand-written program would (top-level inputs as
    snake_case keyword arguments, nested values as plain dicts); None when the class cannot take these inputs."""
    module_name = _module_of(type_token)
    if module_name is None:
        return None
    class_name = "Provider" if type_token.startswith("pulumi:providers:") else type_token.rsplit(":", 1)[-1]
    try:
        cls = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError):
        return None
    skip = {"apiVersion", "kind"} if type_token.startswith("kubernetes:") else set()
    kwargs = {_keyword(key): value for key, value in inputs.items() if key not in skip}
    try:
        return cls(name, opts=opts, **kwargs)
    except TypeError:
        return None


def _stack_config(document: Mapping[str, Any]) -> dict[str, Any]:
    """The stack's config (for provider config the mocks read, e.g. regions), when the stack file exists."""
    from gpu_components.plan import load_stack

    try:
        return load_stack(ROOT, str(document["stack"]))[1]
    except FileNotFoundError:
        return {}


FleetCluster = tuple[str, dict[str, Any], list[dict[str, Any]]]
"""(cloud, cluster config, pools) of one fleet cluster."""


def _fleet_config(size: int, clouds: Sequence[str]) -> tuple[list[FleetCluster], dict[str, Any], list[str]]:
    """Per cloud of ``clouds`` that is available: (cloud, cluster config, ``size`` pools); the merged provider
    config; notes."""
    from gpu_components.cluster import ADAPTERS
    from gpu_components.plan import load_stack

    clusters: list[FleetCluster] = []
    config: dict[str, Any] = {}
    notes: list[str] = []
    for cloud in clouds:
        stack = FLEET_STACKS[cloud]
        if cloud not in ADAPTERS:
            notes.append(f"{cloud}: no adapter registered in gpu_components.cluster.ADAPTERS, skipped")
            continue
        try:
            _, stack_config = load_stack(ROOT, stack)
        except FileNotFoundError:
            notes.append(f"{cloud}: no stacks/Pulumi.{stack}.yaml, skipped")
            continue
        config.update({k: v for k, v in stack_config.items() if not k.startswith(f"{CONFIG_NAMESPACE}:")})
        cluster = dict(stack_config[f"{CONFIG_NAMESPACE}:cluster"])
        cluster["name"] = f"fleet{cloud}"
        if "resource_group_name" in cluster:
            cluster["resource_group_name"] = f"fleet{cloud}-rg"
        templates = stack_config[f"{CONFIG_NAMESPACE}:pools"]
        pools = [{**templates[i % len(templates)], "name": f"{FLEET_PREFIX[cloud]}{i}"} for i in range(1, size + 1)]
        clusters.append((cloud, cluster, pools))
    return clusters, config, notes


def _fleet_argument(size: int, clouds: Sequence[str], plan_file: Path | None = None) -> str:
    """The ``--child fleet`` argument: ``N[:CLOUD,...][:PATH]`` (default every cloud; PATH: also write the plan)."""
    return ":".join([str(size), ",".join(clouds), *([str(plan_file)] if plan_file else [])])


def _child_fleet(argument: str) -> dict[str, Any]:
    """One program, one cluster per cloud (each with an adapter), N GPU pools each, as the example program
    composes one: provision, Kubernetes provider, GpuCluster, sample Jobs. ``argument``: see
    :func:`_fleet_argument` (the JSON plan written to PATH is for the bare replay)."""
    import pulumi
    import pulumi_kubernetes as k8s

    from gpu_components.cluster import GpuCluster, adapter_for
    from gpu_components.plan import run_program, to_json
    from gpu_components.samples import sample_jobs

    count, _, rest = argument.partition(":")
    clouds, _, plan_file = rest.partition(":")
    size = int(count)

    clusters, config, notes = _fleet_config(size, clouds.split(",") if clouds else list(FLEET_STACKS))

    def program() -> None:
        for cloud, cluster, pools in clusters:
            name = str(cluster["name"])
            provisioned = adapter_for(cloud).provision(cluster)
            provider = k8s.Provider(f"{name}-k8s", kubeconfig=pulumi.Output.secret(provisioned.kubeconfig))
            args: Any = {"cloud": cloud, "pools": pools, cloud: dict(provisioned.wiring)}
            gpus = GpuCluster(
                f"{name}-gpu",
                args,
                pulumi.ResourceOptions(providers={"kubernetes": provider}, depends_on=provisioned.depends_on),
            )
            sample_jobs(gpus, pulumi.ResourceOptions(provider=provider, depends_on=[gpus]))

    plan = run_program(program, project="gpu-components", stack=f"fleet-{size}", config=config)
    if plan_file:
        Path(plan_file).write_text(to_json(plan))
    return {"resources": len(plan.resources), "clouds": [c for c, _, _ in clusters], "notes": notes}


def _child(mode: str, argument: str) -> None:
    children: dict[str, Callable[[str], dict[str, Any]]] = {
        "stack": _child_stack,
        "bare": _child_bare,
        "fleet": _child_fleet,
    }
    result = children[mode](argument)
    result["peak_mb"] = round(_peak_mb(), 1)
    print(json.dumps(result))


# ------------------------------------------------------------------------------------------------------ parent


def _measure(mode: str, argument: str, runs: int) -> dict[str, Any]:
    """Run ``--child mode argument`` ``runs`` times; median wall seconds, max peak MB, the child's last report."""
    seconds: list[float] = []
    peaks: list[float] = []
    report: dict[str, Any] = {}
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, __file__, "--child", mode, argument],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=False,
        )
        elapsed = time.perf_counter() - start
        if done.returncode != 0:
            raise RuntimeError(f"{mode} {argument} failed:\n{done.stderr[-4000:]}")
        report = json.loads(done.stdout.strip().splitlines()[-1])
        seconds.append(elapsed)
        peaks.append(float(report["peak_mb"]))
    return {**report, "seconds": statistics.median(seconds), "all_seconds": seconds, "peak_mb": max(peaks)}


def _stacks() -> list[str]:
    return sorted(p.name[len("Pulumi.") : -len(".yaml")] for p in (ROOT / "stacks").glob("Pulumi.*.yaml"))


def _machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 1024**3:.0f} GB RAM"
    except (ValueError, OSError):
        pass
    return f"{cpu}, {os.cpu_count()} CPUs{memory}, Python {platform.python_version()}, {platform.system()}"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _measure_fleet(size: int, clouds: Sequence[str], runs: int) -> dict[str, Any]:
    """The fleet of ``size`` pools per cloud of ``clouds``, and the bare replay of its plan."""
    with tempfile.TemporaryDirectory() as scratch:
        plan_file = Path(scratch) / "fleet.json"
        result = _measure("fleet", _fleet_argument(size, clouds, plan_file), runs)
        bare = _measure("bare", str(plan_file), runs)
    return {"size": size, **result, "bare_seconds": bare["seconds"], "bare_mb": bare["peak_mb"]}


def _fleet_cells(entry: Mapping[str, Any]) -> list[str]:
    """resources, seconds, peak MB, bare s, bare MB, ours / bare."""
    return [
        str(entry["resources"]),
        f"{entry['seconds']:.2f}",
        f"{entry['peak_mb']:.0f}",
        f"{entry['bare_seconds']:.2f}",
        f"{entry['bare_mb']:.0f}",
        f"{entry['seconds'] / entry['bare_seconds']:.2f}x",
    ]


def _fleet_failures(label: str, entry: Mapping[str, Any]) -> list[str]:
    """The targets a fleet measurement misses: the ratio to bare always, time and memory from N = 100."""
    failures = []
    ratio = entry["seconds"] / entry["bare_seconds"]
    if ratio > TARGET_RATIO:
        failures.append(f"{label}: {ratio:.2f}x the bare baseline (target <= {TARGET_RATIO}x)")
    if entry["size"] >= 100 and (entry["seconds"] > TARGET_SECONDS or entry["peak_mb"] > TARGET_MB):
        failures.append(
            f"{label}: {entry['seconds']:.1f} s, {entry['peak_mb']:.0f} MB "
            f"(target < {TARGET_SECONDS:g} s and < {TARGET_MB:g} MB)"
        )
    return failures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5, help="runs per example stack and baseline (median)")
    parser.add_argument("--fleet-runs", type=int, default=3, help="runs per fleet size (median)")
    parser.add_argument("--sizes", default="1,10,100", help="fleet pools per cloud, comma-separated")
    parser.add_argument("--quick", action="store_true", help="1 run each, fleet sizes 1 and 10")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "ARG"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    runs, fleet_runs = (1, 1) if args.quick else (args.runs, args.fleet_runs)
    sizes = [1, 10] if args.quick else [int(size) for size in args.sizes.split(",")]

    print(f"Machine: {_machine()}")
    print(f"Runs: {runs} per stack and baseline, {fleet_runs} per fleet size; wall time is the median.\n")
    failures: list[str] = []

    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for stack in _stacks():
            ours = _measure("stack", stack, runs)
            plan_file = Path(scratch) / f"{stack}.json"
            done = subprocess.run(
                [sys.executable, "-m", "gpu_components", "plan", stack, "--format", "json"],
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
            plan_file.write_text(done.stdout)
            bare = _measure("bare", str(plan_file), runs)
            ratio = ours["seconds"] / bare["seconds"]
            if ratio > TARGET_RATIO:
                failures.append(f"{stack}: {ratio:.2f}x the bare baseline (target <= {TARGET_RATIO}x)")
            rows.append(
                [
                    stack,
                    str(ours["resources"]),
                    f"{ours['seconds']:.2f}",
                    f"{ours['peak_mb']:.0f}",
                    f"{bare['seconds']:.2f}",
                    f"{bare['peak_mb']:.0f}",
                    f"{ratio:.2f}x",
                ]
            )
    print("Example stacks (whole process: `gpu-components plan STACK --format json`)\n")
    headers = ["stack", "resources", "ours s", "ours MB", "bare s", "bare MB", "ours / bare"]
    print(_table(headers, rows) + "\n")

    fleet = [_measure_fleet(size, list(FLEET_STACKS), fleet_runs) for size in sizes]
    clouds = fleet[0].get("clouds", []) if fleet else []
    for note in fleet[0].get("notes", []) if fleet else []:
        print(f"Note: {note}")
    print(f"Fleet: one program, {len(clouds)} clusters ({', '.join(clouds)}), N pools each; whole process\n")
    rows = []
    previous: dict[str, Any] | None = None
    for entry in fleet:
        slope = ""
        if previous is not None:
            added = (entry["size"] - previous["size"]) * max(len(clouds), 1)
            slope = f"{(entry['seconds'] - previous['seconds']) / added * 1000:.1f}"
        rows.append([str(entry["size"]), str(entry["size"] * len(clouds)), *_fleet_cells(entry), slope])
        failures += _fleet_failures(f"fleet N={entry['size']} ({len(clouds)} clouds)", entry)
        previous = entry
    headers = ["N per cloud", "pools", "resources", "seconds", "peak MB", "bare s", "bare MB", "ours / bare"]
    print(_table([*headers, "ms per added pool"], rows) + "\n")

    largest = max(sizes)
    print(f"Each cloud alone: one program, one cluster, N = {largest} pools; whole process\n")
    rows = []
    for cloud in clouds:
        entry = _measure_fleet(largest, [cloud], fleet_runs)
        rows.append([cloud, str(largest), *_fleet_cells(entry)])
        failures += _fleet_failures(f"{cloud} alone N={largest}", entry)
    print(_table(["cloud", "pools", *headers[2:]], rows) + "\n")
    if failures:
        print("Targets missed:")
        for failure in failures:
            print(f"- {failure}")
    else:
        print("All targets met.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
