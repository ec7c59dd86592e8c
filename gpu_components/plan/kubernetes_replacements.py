"""What pulumi-kubernetes replaces rather than updates: its force-new fields per kind, and when it deletes first.

The Kubernetes provider decides replacements itself, in its ``Diff``, from a table of fields per API group, version
and kind, plus ``metadata.name`` and ``metadata.namespace`` of every object (``forceNewProperties`` in
``provider/pkg/provider/diff.go`` of pulumi/pulumi-kubernetes v4, :data:`SOURCE_FORCE_NEW`). A ConfigMap's ``data``
and ``binaryData`` and a Secret's ``type``, ``data`` and ``stringData`` are replaced unless the provider has
``enableConfigMapMutable`` / ``enableSecretMutable`` set (and the object is not ``immutable: true``): a new
ConfigMap is how a change reaches the pods that mount it. A replaced object whose name the program gave and keeps,
in the same namespace, is deleted before its replacement is created (it could not exist twice:
``deleteBeforeReplace`` in the provider's ``Diff``, ``provider/pkg/provider/provider.go``, :data:`SOURCE_DELETE_FIRST`).
A Helm release (``helm.sh/v3:Release``) is replaced when its ``name`` or ``namespace`` changes, and never deleted
first (``provider/pkg/provider/helm_release.go``).

Paths are the plan's input property paths (:mod:`gpu_components.plan.property_path`), ``[*]`` any list index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from gpu_components.plan.property_path import Path, parse

__all__ = [
    "FORCE_NEW",
    "HELM_RELEASE_TYPE",
    "SOURCE_DELETE_FIRST",
    "SOURCE_FORCE_NEW",
    "deletes_first",
    "force_new_paths",
]

SOURCE_FORCE_NEW = "https://github.com/pulumi/pulumi-kubernetes/blob/94977969d64112b04e19945818a7d5d5f38f631d/provider/pkg/provider/diff.go"
SOURCE_DELETE_FIRST = (
    "https://github.com/pulumi/pulumi-kubernetes/blob/94977969d64112b04e19945818a7d5d5f38f631d/provider/pkg/provider/"
    "provider.go"
)
HELM_RELEASE_TYPE = "kubernetes:helm.sh/v3:Release"

_SELECTOR = ("spec.selector",)
_CONTAINER_FIELDS = (
    "args",
    "command",
    "env",
    "image",
    "imagePullPolicy",
    "lifecycle",
    "livenessProbe",
    "ports",
    "readinessProbe",
    "resources",
    "securityContext",
    "stdin",
    "stdinOnce",
    "terminationMessagePath",
    "terminationMessagePolicy",
    "tty",
    "volumeDevices",
    "volumeMounts",
    "workingDir",
)
_POD = (
    *(
        f"spec.{field}"
        for field in (
            "affinity",
            "automountServiceAccountToken",
            "dnsConfig",
            "dnsPolicy",
            "enableServiceLinks",
            "hostAliases",
            "hostIPC",
            "hostNetwork",
            "hostPID",
            "hostname",
            "imagePullSecrets",
            "nodeName",
            "nodeSelector",
            "overhead",
            "preemptionPolicy",
            "priority",
            "priorityClassName",
            "readinessGates",
            "restartPolicy",
            "runtimeClassName",
            "schedulerName",
            "securityContext",
            "serviceAccount",
            "serviceAccountName",
            "shareProcessNamespace",
            "subdomain",
            "terminationGracePeriodSeconds",
            "volumes",
        )
    ),
    *(
        f"spec.{containers}[*].{field}"
        for containers in ("containers", "initContainers")
        for field in _CONTAINER_FIELDS
    ),
)
_PERSISTENT_VOLUME_SOURCES = (
    "awsElasticBlockStore",
    "azureDisk",
    "azureFile",
    "cephfs",
    "cinder",
    "csi",
    "fc",
    "flexVolume",
    "flocker",
    "gcePersistentDisk",
    "glusterfs",
    "hostPath",
    "iscsi",
    "local",
    "nfs",
    "photonPersistentDisk",
    "portworxVolume",
    "quobyte",
    "rbd",
    "scaleIO",
    "storageos",
    "vsphereVolume",
)
_ROLE_BINDING = ("roleRef",)

FORCE_NEW: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "kubernetes:apps/v1:DaemonSet": _SELECTOR,
        "kubernetes:apps/v1:Deployment": _SELECTOR,
        "kubernetes:apps/v1:StatefulSet": (
            "spec.podManagementPolicy",
            "spec.revisionHistoryLimit",
            "spec.serviceName",
            "spec.volumeClaimTemplates",
            *_SELECTOR,
        ),
        "kubernetes:batch/v1:Job": ("spec.completions", "spec.parallelism", "spec.template", *_SELECTOR),
        "kubernetes:core/v1:PersistentVolume": tuple(f"spec.{source}" for source in _PERSISTENT_VOLUME_SOURCES),
        "kubernetes:core/v1:PersistentVolumeClaim": (
            "spec.accessModes",
            "spec.storageClassName",
            "spec.volumeName",
            *_SELECTOR,
        ),
        "kubernetes:core/v1:Pod": _POD,
        "kubernetes:core/v1:ResourceQuota": ("spec.scopes",),
        "kubernetes:core/v1:Service": ("spec.clusterIP",),
        "kubernetes:rbac.authorization.k8s.io/v1:ClusterRoleBinding": _ROLE_BINDING,
        "kubernetes:rbac.authorization.k8s.io/v1:RoleBinding": _ROLE_BINDING,
        "kubernetes:storage.k8s.io/v1:StorageClass": ("parameters", "provisioner"),
    }
)
"""Kubernetes type token -> the fields (besides ``metadata.name`` and ``metadata.namespace``) whose change the provider
replaces the object for, each covering what lies beneath it [source: :data:`SOURCE_FORCE_NEW`]."""

_MUTABLE_UNLESS_CONFIGURED: Mapping[str, tuple[str, tuple[str, ...]]] = MappingProxyType(
    {
        "kubernetes:core/v1:ConfigMap": ("enableConfigMapMutable", ("binaryData", "data")),
        "kubernetes:core/v1:Secret": ("enableSecretMutable", ("type", "data", "stringData")),
    }
)
"""Kinds replaced on a change of their contents unless the provider's setting says they may change in place."""

_METADATA = ("metadata.name", "metadata.namespace")


def force_new_paths(resource_type: str, inputs: Mapping[str, Any], provider: Mapping[str, Any]) -> tuple[Path, ...]:
    """The input paths whose change makes pulumi-kubernetes replace a ``resource_type`` object with ``inputs`` (plain,
    as a plan records them) under a provider with ``provider`` inputs (``{}`` for the default provider, whose
    settings the plan does not record: the provider's defaults then).

    Empty for types that are not Kubernetes objects. A Helm release: ``name`` and ``namespace``.
    """
    if resource_type == HELM_RELEASE_TYPE:
        return (parse("name"), parse("namespace"))
    if not resource_type.startswith("kubernetes:") or resource_type.count(":") != 2:
        return ()
    fields: Sequence[str] = (*_METADATA, *FORCE_NEW.get(resource_type, ()))
    mutable = _MUTABLE_UNLESS_CONFIGURED.get(resource_type)
    if mutable is not None:
        setting, contents = mutable
        if inputs.get("immutable") is True or str(provider.get(setting, "")).lower() != "true":
            fields = (*fields, *contents)
    return tuple(parse(field) for field in fields)


def deletes_first(resource_type: str, old_inputs: Mapping[str, Any], new_inputs: Mapping[str, Any]) -> bool:
    """Whether pulumi-kubernetes deletes a replaced ``resource_type`` object before creating its replacement: the
    program names it (``metadata.name``, not auto-named) and keeps that name and namespace [source:
    :data:`SOURCE_DELETE_FIRST`]. Never for a Helm release or a type that is not a Kubernetes object."""
    if not resource_type.startswith("kubernetes:") or resource_type == HELM_RELEASE_TYPE:
        return False
    old, new = _metadata(old_inputs), _metadata(new_inputs)
    name = new.get("name")
    return isinstance(name, str) and name == old.get("name") and new.get("namespace") == old.get("namespace")


def _metadata(inputs: Mapping[str, Any]) -> Mapping[str, Any]:
    metadata = inputs.get("metadata")
    return metadata if isinstance(metadata, Mapping) else {}
