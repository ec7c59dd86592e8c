"""Tests for gpu_components.plan.options: each resource's options recorded as the engine receives them."""

from __future__ import annotations

import json

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from gpu_components.plan import SECRET, Plan, PlannedResource, run_program, to_json

STACK = "urn:pulumi:dev::proj::"


def run(program: object, preview: bool = True) -> dict[str, PlannedResource]:
    plan: Plan = run_program(program, project="proj", stack="dev", config={}, preview=preview)  # type: ignore[arg-type]
    return {resource.name: resource for resource in plan.resources}


class Box(pulumi.ComponentResource):
    def __init__(self, name: str, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("test:index:Box", name, None, opts)
        self.namespace = k8s.core.v1.Namespace(f"{name}-ns", opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({})


def test_every_option_is_recorded_by_pulumis_name() -> None:
    def program() -> None:
        first = k8s.core.v1.ConfigMap("first", data={"a": "b"})
        k8s.core.v1.ConfigMap(
            "second",
            data={"a": "b"},
            opts=pulumi.ResourceOptions(
                depends_on=[first],
                protect=True,
                replace_on_changes=["data.team", "immutable"],
                ignore_changes=['metadata.labels["owner"]'],
                delete_before_replace=True,
                aliases=[pulumi.Alias(name="old-second")],
                retain_on_delete=True,
                additional_secret_outputs=["data"],
                custom_timeouts=pulumi.CustomTimeouts(create="10m", delete="1h"),
            ),
        )

    resources = run(program)

    assert resources["first"].options == {}
    assert resources["second"].options == {
        "dependsOn": [f"{STACK}kubernetes:core/v1:ConfigMap::first"],
        "protect": True,
        "replaceOnChanges": ["data.team", "immutable"],
        "ignoreChanges": ['metadata.labels["owner"]'],
        "deleteBeforeReplace": True,
        "aliases": [f"{STACK}kubernetes:core/v1:ConfigMap::old-second"],
        "retainOnDelete": True,
        "additionalSecretOutputs": ["data"],
        "customTimeouts": {"create": "10m", "delete": "1h"},
    }


def test_dependencies_of_inputs_are_not_depends_on_and_a_component_is_named_when_all_of_it_is_there() -> None:
    def program() -> None:
        box = Box("box")
        k8s.core.v1.ConfigMap("uses-input", metadata={"namespace": box.namespace.metadata.name}, data={"a": "b"})
        k8s.core.v1.ConfigMap("after-box", data={"a": "b"}, opts=pulumi.ResourceOptions(depends_on=[box]))
        k8s.core.v1.ConfigMap("after-ns", data={"a": "b"}, opts=pulumi.ResourceOptions(depends_on=[box.namespace]))
        outer = Outer("outer")
        k8s.core.v1.ConfigMap("after-outer", data={"a": "b"}, opts=pulumi.ResourceOptions(depends_on=[outer]))

    resources = run(program)

    # The SDK sends a component as the resources in it (the Outer's: the inner Box's namespace and a ConfigMap);
    # the plan names the component again. A component of one resource is that resource.
    namespace = f"{STACK}test:index:Box$kubernetes:core/v1:Namespace::box-ns"
    assert resources["uses-input"].options == {}
    assert resources["after-outer"].options == {"dependsOn": [f"{STACK}test:index:Outer::outer"]}
    assert resources["after-box"].options == {"dependsOn": [namespace]}
    assert resources["after-ns"].options == {"dependsOn": [namespace]}


class Outer(pulumi.ComponentResource):
    def __init__(self, name: str) -> None:
        super().__init__("test:index:Outer", name, None, None)
        Box("inner", pulumi.ResourceOptions(parent=self))
        k8s.core.v1.ConfigMap(f"{name}-cm", data={"a": "b"}, opts=pulumi.ResourceOptions(parent=self))
        self.register_outputs({})


def test_part_of_a_component_stays_a_list_of_its_resources() -> None:
    def program() -> None:
        outer = Outer("outer")
        cm = next(r for r in outer._childResources if isinstance(r, k8s.core.v1.ConfigMap))
        k8s.core.v1.ConfigMap("after-cm", data={"a": "b"}, opts=pulumi.ResourceOptions(depends_on=[cm]))

    resources = run(program)

    assert resources["after-cm"].options == {
        "dependsOn": [f"{STACK}test:index:Outer$kubernetes:core/v1:ConfigMap::outer-cm"]
    }


def test_explicit_providers_are_recorded_by_urn_also_when_inherited_and_the_provider_is_in_the_plan() -> None:
    def program() -> None:
        provider = k8s.Provider("k8s", kubeconfig=pulumi.Output.secret("apiVersion: v1"))
        k8s.core.v1.Namespace("direct", opts=pulumi.ResourceOptions(provider=provider))
        Box("box", pulumi.ResourceOptions(providers={"kubernetes": provider}))
        k8s.core.v1.Namespace("default")

    resources = run(program)
    provider_urn = f"{STACK}pulumi:providers:kubernetes::k8s"

    assert resources["k8s"].urn == provider_urn
    assert resources["k8s"].inputs["kubeconfig"] == SECRET
    assert resources["direct"].options == {"provider": provider_urn}
    assert resources["box-ns"].options == {"provider": provider_urn}
    assert resources["box"].options == {}  # a component's `providers` are handed to its children
    assert resources["default"].options == {}  # the engine's default provider


def test_aliases_resolve_as_the_engine_resolves_them() -> None:
    def program() -> None:
        box = Box("box")
        aws.iam.Role(
            "role",
            assume_role_policy="{}",
            opts=pulumi.ResourceOptions(
                parent=box,
                aliases=[
                    pulumi.Alias(name="old"),  # under the current parent
                    pulumi.Alias(parent=pulumi.ROOT_STACK_RESOURCE),  # once at the top level
                    pulumi.Alias(type_="aws:iam/oldRole:OldRole", parent=None),  # another type, top level
                    "urn:pulumi:prod::other::aws:iam/role:Role::elsewhere",
                    pulumi.Alias(name="moved", stack="staging", project="old-project", parent=None),
                ],
            ),
        )

    options = run(program)["role"].options

    # In the program's order, each as the engine's collapseAliasToUrn makes it.
    assert options == {
        "aliases": [
            f"{STACK}test:index:Box$aws:iam/role:Role::old",
            f"{STACK}aws:iam/role:Role::role",
            f"{STACK}aws:iam/oldRole:OldRole::role",
            "urn:pulumi:prod::other::aws:iam/role:Role::elsewhere",
            "urn:pulumi:staging::old-project::aws:iam/role:Role::moved",
        ]
    }


def test_a_programs_type_alias_on_a_component_is_kept() -> None:
    def program() -> None:
        class Renamed(pulumi.ComponentResource):
            def __init__(self, name: str) -> None:
                super().__init__(
                    "test:index:New", name, None, pulumi.ResourceOptions(aliases=[pulumi.Alias(type_="test:index:Old")])
                )
                self.register_outputs({})

        Renamed("r")

    assert run(program)["r"].options == {"aliases": [f"{STACK}test:index:Old::r"]}


def test_options_are_the_same_in_preview_and_up_and_in_the_json_plan() -> None:
    def program() -> None:
        aws.iam.Role("b", assume_role_policy="{}", opts=pulumi.ResourceOptions(ignore_changes=["tags"], protect=True))

    assert run(program, preview=True)["b"].options == run(program, preview=False)["b"].options
    document = json.loads(to_json(run_program(program, project="proj", stack="dev", config={})))
    assert [resource["options"] for resource in document["resources"]] == [{"ignoreChanges": ["tags"], "protect": True}]
