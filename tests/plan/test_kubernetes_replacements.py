"""pulumi-kubernetes's own replacement rules, as the plan's diff applies them: force-new fields per kind, ConfigMaps
and Secrets replaced unless the provider makes them mutable, and named objects deleted before they are replaced."""

from __future__ import annotations

import copy
from typing import Any

from gpu_components.plan.diff import diff, to_text
from gpu_components.plan.kubernetes_replacements import deletes_first, force_new_paths
from gpu_components.plan.property_path import render
from tests.plan.test_diff import record

PROVIDER_URN = "urn:pulumi:dev::p::pulumi:providers:kubernetes::k8s"


def resource(type_: str, name: str, inputs: dict[str, Any], provider: bool = False) -> dict[str, Any]:
    return record(type_, name, inputs, {"provider": PROVIDER_URN} if provider else {})


def plan(*resources: dict[str, Any], mutable_config_maps: bool = False) -> dict[str, Any]:
    provider_inputs = {"kubeconfig": "[secret]", **({"enableConfigMapMutable": "true"} if mutable_config_maps else {})}
    provider = {**resource("pulumi:providers:kubernetes", "k8s", provider_inputs), "urn": PROVIDER_URN}
    return {"project": "p", "stack": "dev", "resources": [provider, *resources], "outputs": {}}


def config_map(data: str, **metadata: Any) -> dict[str, Any]:
    inputs = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": metadata, "data": {"config.yaml": data}}
    return resource("kubernetes:core/v1:ConfigMap", "config", inputs, provider=True)


def test_a_named_config_map_whose_data_changes_is_deleted_then_replaced() -> None:
    old, new = (
        config_map("a", name="plugin-config", namespace="gpu"),
        config_map("b", name="plugin-config", namespace="gpu"),
    )

    assert to_text(diff(plan(old), plan(new))) == (
        "Plan diff of dev:\n"
        "+- kubernetes:core/v1:ConfigMap config  [delete before replace]\n"
        '    data["config.yaml"]: "a" -> "b"  [forces replacement]\n'
        "0 to create, 0 to update, 1 to replace, 0 to delete; 0 output change(s)\n"
    )


def test_an_auto_named_config_map_is_replaced_creating_the_new_one_first() -> None:
    text = to_text(diff(plan(config_map("a", namespace="gpu")), plan(config_map("b", namespace="gpu"))))
    assert text.splitlines()[1] == "+- kubernetes:core/v1:ConfigMap config"


def test_config_maps_change_in_place_under_a_provider_that_makes_them_mutable() -> None:
    old, new = config_map("a", name="c"), config_map("b", name="c")
    text = to_text(diff(plan(old, mutable_config_maps=True), plan(new, mutable_config_maps=True)))
    assert text.splitlines()[1:3] == ["~ kubernetes:core/v1:ConfigMap config", '    data["config.yaml"]: "a" -> "b"']


def test_an_immutable_config_map_is_replaced_whatever_the_provider_says() -> None:
    paths = force_new_paths("kubernetes:core/v1:ConfigMap", {"immutable": True}, {"enableConfigMapMutable": "true"})
    assert [render(p) for p in paths] == ["metadata.name", "metadata.namespace", "binaryData", "data"]


def test_a_jobs_pod_template_selector_completions_and_parallelism_force_a_new_job() -> None:
    paths = force_new_paths("kubernetes:batch/v1:Job", {}, {})
    assert [render(p) for p in paths] == [
        "metadata.name",
        "metadata.namespace",
        "spec.completions",
        "spec.parallelism",
        "spec.template",
        "spec.selector",
    ]


def test_a_daemon_sets_template_changes_in_place_and_its_selector_replaces_it() -> None:
    spec = {"selector": {"matchLabels": {"app": "a"}}, "template": {"spec": {"containers": [{"image": "x:1"}]}}}
    old = resource("kubernetes:apps/v1:DaemonSet", "ds", {"metadata": {"name": "ds"}, "spec": spec}, provider=True)
    image, selector = copy.deepcopy(old), copy.deepcopy(old)
    image["inputs"]["spec"]["template"]["spec"]["containers"][0]["image"] = "x:2"
    selector["inputs"]["spec"]["selector"]["matchLabels"]["app"] = "b"

    assert to_text(diff(plan(old), plan(image))).splitlines()[1] == "~ kubernetes:apps/v1:DaemonSet ds"
    assert to_text(diff(plan(old), plan(selector))).splitlines()[1:3] == [
        "+- kubernetes:apps/v1:DaemonSet ds  [delete before replace]",
        '    spec.selector.matchLabels.app: "a" -> "b"  [forces replacement]',
    ]


def test_a_helm_release_is_replaced_for_its_name_and_namespace_and_never_deleted_first() -> None:
    release = "kubernetes:helm.sh/v3:Release"
    assert [render(p) for p in force_new_paths(release, {}, {})] == ["name", "namespace"]
    assert not deletes_first(release, {"name": "r"}, {"name": "r"})


def test_only_objects_that_keep_the_name_the_program_gave_are_deleted_first() -> None:
    cm = "kubernetes:core/v1:ConfigMap"
    named = {"metadata": {"name": "c", "namespace": "a"}}
    assert deletes_first(cm, named, named)
    assert not deletes_first(cm, named, {"metadata": {"name": "c", "namespace": "b"}})
    assert not deletes_first(cm, named, {"metadata": {"name": "d", "namespace": "a"}})
    assert not deletes_first(cm, {"metadata": {}}, {"metadata": {}})
    assert not deletes_first("aws:iam/role:Role", named, named)
    assert force_new_paths("aws:iam/role:Role", named, {}) == ()
