"""Plan any Pulumi Python or YAML project: load it as the Pulumi CLI does and run its program under the plan's mocks.

`load_project(directory)` reads `<directory>/Pulumi.yaml` (the directory `pulumi -C DIR` names): the project name,
its `runtime` (`python` or `yaml`), the program that `main:` names (a YAML program is `Pulumi.yaml` itself:
`gpu_components.plan.yaml_program`) and the stack config directory (`stackConfigDir`).
`run_project(project, stack)` runs that program as `pulumi preview` would, with the stack's config
(`runner.load_stack`), under `runner.run_program`, and returns a `ProjectPlan`: the `Plan`, plus the capacity record
of every node-pool component the program created (`pools`), so the capacity report and the diagrams need no
hand-exported stack output.

How the program is run (the Pulumi CLI's `getPwdMain` and the Python language host's `pulumi-language-python-exec`):
`main:` is a path relative to the project directory and inside it (default: the project directory). A directory runs
its `__main__.py` (`runpy.run_path(<dir>)`), a file runs that file, as module `__main__`. While the program runs
(its `apply` callbacks included) its directory (the `main:` directory, or the file's) is the working directory and
the first entry of `sys.path`, so it imports its sibling modules; `sys.argv` is `[<entry point>]`. Afterwards the
working directory, `sys.path` and `sys.argv` are restored, and the modules imported from the program's directory
are forgotten: each run imports them afresh, as each `pulumi preview` runs in a new process (a module that reads
config or registers resources when imported does so for every stack).
"""

from __future__ import annotations

import dataclasses
import os
import runpy
import sys
import traceback
from collections import Counter
from collections.abc import Awaitable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

import pulumi

from gpu_components._extras import MissingExtraError
from gpu_components.adapter import GpuNodePool, is_pool_component
from gpu_components.capacity import PoolCapacity, pool_capacity, served_extended_resource
from gpu_components.errors import GpuSpecError
from gpu_components.plan.call_sites import call_site_of
from gpu_components.plan.mocks import DuplicateResourceError
from gpu_components.plan.runner import (
    Plan,
    StackFileError,
    _check_preview,
    _load_project,
    _read_mapping,
    _shown,
    load_stack,
    run_program,
)
from gpu_components.plan.user_mocks import load_user_mocks
from gpu_components.plan.yaml_program import YAML_RUNTIME, read_yaml_program, yaml_program_body

__all__ = [
    "PROGRAM_RUNTIME",
    "RUNTIMES",
    "ProgramError",
    "Project",
    "ProjectPlan",
    "load_project",
    "pool_records",
    "run_project",
]

PROGRAM_RUNTIME = "python"
"""The runtime of a Python project (`runtime: python`, or `runtime: {name: python, options: ...}`)."""

RUNTIMES = (PROGRAM_RUNTIME, YAML_RUNTIME)
"""The runtimes the plan runs: Python programs, and Pulumi YAML programs (`gpu_components.plan.yaml_program`)."""

_PASSED_THROUGH = (GpuSpecError, MissingExtraError, DuplicateResourceError, StackFileError)
"""What a program's run raises that keeps its own message: invalid GPU input, a cloud's missing extra, two resources
with one URN (the plan's own checks, reported as before), and a mocks file whose entries the run shows misspelt
(`StackFileError` naming the file). Anything else it raises becomes a `ProgramError`."""

_INSTALLED = frozenset({"site-packages", "dist-packages"})
"""Directory names of installed packages: a file under one is never the program's, even inside its directory (a
virtualenv in the project)."""


@dataclass(frozen=True)
class Project:
    """A Pulumi Python or YAML project as `Pulumi.yaml` describes it.

    Attributes:
        name: the project name (`name:`): the URNs' project and the config namespace of keys without one.
        directory: the directory holding `Pulumi.yaml`, as given.
        main: what `main:` names, under `directory`: a directory (its `__main__.py` runs) or a Python file; for a
            YAML project, `Pulumi.yaml` itself (its `resources:` are the program).
        stack_config_dir: where the stack config files `Pulumi.<stack>.yaml` are (`stackConfigDir:`).
        runtime: `python` (`PROGRAM_RUNTIME`, the default) or `yaml` (`YAML_RUNTIME`).
    """

    name: str
    directory: Path
    main: Path
    stack_config_dir: Path
    runtime: str = PROGRAM_RUNTIME

    @property
    def program_directory(self) -> Path:
        """The program's directory: its working directory and first `sys.path` entry while it runs."""
        return self.main if self.main.is_dir() else self.main.parent

    @property
    def program(self) -> Path:
        """The file that runs as `__main__`: `<main>/__main__.py`, or the file `main:` names."""
        return self.main / "__main__.py" if self.main.is_dir() else self.main

    def stacks(self) -> list[str]:
        """The stacks with a config file in the stack config directory, sorted."""
        return sorted(path.name[len("Pulumi.") : -len(".yaml")] for path in self.stack_config_dir.glob("Pulumi.*.yaml"))


@dataclass(frozen=True)
class ProjectPlan(Plan):
    """A project's `Plan`, with the capacity record of each node-pool component its program created.

    Attributes:
        pools: pool name -> `gpu_components.capacity.PoolCapacity` of every `EksGpuNodeGroup`, `AksGpuNodePool`
            and `GkeGpuNodePool` the program created (directly or through `GpuCluster`), sorted by name; two pools
            of one name (in two clusters) are told apart by their component's resource name, `<pool> (<resource>)`.
            Empty when the program creates none.
    """

    pools: Mapping[str, PoolCapacity] = field(default_factory=dict)


class ProgramError(Exception):
    """The program raised: the exception's type and message, and where in the program it was raised.

    Attributes:
        error: the exception the program raised (also this one's `__cause__`).
        file: the program's file that raised it, relative to the project directory when inside it: the innermost
            frame of the traceback in the program's directory (not under `site-packages`); for an error raised in
            an invoke (a missing mock) or an `apply` callback inside an SDK (`output.a.b` on a missing value), the
            program's line that called the invoke or `apply` (`gpu_components.plan.call_sites`). When no frame is
            in the program, the innermost frame of the traceback, and `in_program` is False. None when the
            traceback has no frame.
        line: that frame's line number.
    """

    def __init__(self, error: BaseException, project: Project) -> None:
        self.error = error
        location = _raised_at(error, project.program_directory.resolve())
        self.in_program = location is not None and location[2]
        self.file = _shown_path(location[0], project.directory.resolve()) if location else None
        self.line = location[1] if location else None
        kind = type(error).__name__
        text = error.msg if isinstance(error, SyntaxError) and error.msg else str(error)
        if isinstance(error, SystemExit):
            message = f"the program called sys.exit({error.code!r})"
        else:
            message = f"the program raised {kind}: {text}" if text else f"the program raised {kind}"
        if self.file is not None:
            where = f"{self.file}:{self.line}"
            message += f" (at {where})" if self.in_program else f" (at {where}, outside the program)"
        super().__init__(message)


def load_project(directory: str | os.PathLike[str]) -> Project:
    """Read `<directory>/Pulumi.yaml` as the Pulumi CLI reads it for `pulumi -C <directory> preview`.

    Raises:
        FileNotFoundError: `<directory>/Pulumi.yaml` is missing.
        StackFileError: `Pulumi.yaml` is not valid YAML or not a valid project file (no name, a bad
            `stackConfigDir`), has no `runtime` or one that is neither `python` nor `yaml` (`runtime: nodejs`), a
            Python project's `main:` is not a relative path inside the project, does not exist, or is a directory
            without `__main__.py`. The message names `Pulumi.yaml` and the problem.
        YamlProgramError: (a `StackFileError`) a YAML program the offline plan cannot run
            (`yaml_program.read_yaml_program`: a function such as `fn::invoke`, an unknown key or name, a cycle).
    """
    directory = Path(directory)
    name, stack_dir, _ = _load_project(directory)
    project_file = directory / "Pulumi.yaml"
    document = _read_mapping(project_file)
    runtime = _check_runtime(project_file, document.get("runtime", None), "runtime" in document)
    if runtime == YAML_RUNTIME:
        read_yaml_program(project_file, name)
        return Project(name, directory, project_file, stack_dir, YAML_RUNTIME)
    main = _main(project_file, directory, document.get("main"))
    return Project(name=name, directory=directory, main=main, stack_config_dir=stack_dir)


def _check_runtime(project_file: Path, runtime: object, given: bool) -> str:
    """The language `runtime:` names (one of `RUNTIMES`): a language name, or a mapping with one under `name`
    (Pulumi's project schema)."""
    if not given:
        raise StackFileError(
            project_file,
            f"runtime is missing: the project's language, which the plan needs to be {' or '.join(RUNTIMES)}",
        )
    language = runtime.get("name") if isinstance(runtime, dict) else runtime
    if not isinstance(language, str) or not language:
        raise StackFileError(
            project_file,
            f"runtime must be a language name, or a mapping with the language under name (got {_shown(runtime)})",
        )
    if language not in RUNTIMES:
        raise StackFileError(
            project_file,
            f"runtime is {language}, not {' or '.join(RUNTIMES)}: gpu-components plan runs Pulumi Python and YAML "
            "programs only",
        )
    return language


def _main(project_file: Path, directory: Path, main: object) -> Path:
    """The directory or file `main:` names, checked as the Pulumi CLI checks it (`getPwdMain`), and that the
    Python language host finds a program there."""
    if main is None or main == "":
        if not (directory / "__main__.py").is_file():
            raise StackFileError(
                project_file,
                f"the program {directory / '__main__.py'} does not exist (without main:, the program is the "
                "project directory's __main__.py)",
            )
        return directory
    if not isinstance(main, str):
        raise StackFileError(
            project_file, f"main must be a path relative to the project directory (got {_shown(main)})"
        )
    if Path(main).is_absolute():
        raise StackFileError(project_file, f"main must be a relative path (got {main!r})")
    target = Path(os.path.normpath(directory / main))
    if not target.is_relative_to(Path(os.path.normpath(directory))):
        raise StackFileError(project_file, f"main must be inside the project directory (got {main!r})")
    if not target.exists():
        raise StackFileError(project_file, f"main: {main} does not exist (no file or directory {target})")
    if target.is_dir() and not (target / "__main__.py").is_file():
        raise StackFileError(
            project_file, f"main: {main} is a directory without __main__.py (the program Pulumi runs there)"
        )
    return target


def run_project(project: Project | str | os.PathLike[str], stack: str, *, preview: bool = False) -> ProjectPlan:
    """Plan one stack of a Pulumi Python or YAML project: its program, with the stack's config, under the plan's mocks.

    Args:
        project: a `Project` (`load_project`), or the directory holding its `Pulumi.yaml` (a `str` or path-like).
        stack: the stack name; its config is `<stackConfigDir>/Pulumi.<stack>.yaml` (`runner.load_stack`).
        preview: False (the default): the state after `pulumi up` of a new stack, every output known; True: the
            `pulumi preview` of a new stack, computed outputs unknown (`runner.run_program`).

    The program's own mocks, `gpu-components-mocks.yaml` beside `Pulumi.yaml` (`user_mocks`), answer the invokes
    and give the resource outputs the plan's mocks cannot know.

    Returns:
        The `ProjectPlan`: what `run_program` returns, with the capacity records of the program's node-pool
        components (`pools`).

    Raises:
        FileNotFoundError, StackFileError: no project there, a project file the plan cannot run (`load_project`),
            a missing or malformed stack file (`runner.StackNotFoundError`, `StackFileError`), a malformed
            `gpu-components-mocks.yaml` (`user_mocks.load_user_mocks`).
        GpuSpecError, MissingExtraError, DuplicateResourceError: raised by the program, unchanged (a component of a
            YAML program reports its input errors with camelCase property paths, as `pulumi up` shows them).
        YamlProgramError: a YAML program the offline plan cannot run, or a config value it lacks
            (`yaml_program`).
        ProgramError: the program raised anything else (or called `sys.exit`); the original is its `error`.
        TypeError: `preview` is not a bool.
    """
    _check_preview("run_project", preview)
    if not isinstance(project, Project):
        project = load_project(project)
    name, config = load_stack(project.directory, stack)
    user_mocks = load_user_mocks(project.directory)
    components: list[tuple[str, pulumi.Resource]] = []

    def collect(args: pulumi.ResourceTransformationArgs) -> None:
        if isinstance(args.resource, pulumi.ComponentResource):
            components.append((args.name, args.resource))

    entry = str(project.main.resolve())  # before the run changes the working directory
    passed: tuple[type[BaseException], ...] = _PASSED_THROUGH
    if project.runtime == YAML_RUNTIME:
        yaml_body = yaml_program_body(
            read_yaml_program(project.main, name), config, stack=stack, directory=project.directory
        )
        passed += (StackFileError,)

        def body() -> Awaitable[None] | None:
            pulumi.runtime.register_stack_transformation(collect)
            return yaml_body()
    else:

        def body() -> Awaitable[None] | None:
            pulumi.runtime.register_stack_transformation(collect)
            runpy.run_path(entry, run_name="__main__")
            return None

    try:
        with _program_environment(project):
            plan = run_program(body, project=name, stack=stack, config=config, preview=preview, user_mocks=user_mocks)
    except passed:
        raise
    except (Exception, SystemExit) as error:
        raise ProgramError(error, project) from error
    fields = {item.name: getattr(plan, item.name) for item in dataclasses.fields(plan)}
    return ProjectPlan(**fields, pools=_pool_records(components))


def pool_records(plan: Plan) -> Mapping[str, PoolCapacity] | None:
    """The capacity records of the node-pool components a `ProjectPlan`'s program created; None for any other plan,
    or when the program created none (the capacity report and diagrams then read the `gpuPools` stack output)."""
    return plan.pools if isinstance(plan, ProjectPlan) and plan.pools else None


def _pool_records(components: list[tuple[str, pulumi.Resource]]) -> dict[str, PoolCapacity]:
    pools = [(name, cast(GpuNodePool, component)) for name, component in components if is_pool_component(component)]
    count = Counter(pool.spec.name for _, pool in pools)
    drivers = [component for _, component in components]
    records = {
        pool.spec.name if count[pool.spec.name] == 1 else f"{pool.spec.name} ({name})": pool_capacity(
            pool, served_extended_resource(pool, drivers)
        )
        for name, pool in pools
    }
    return dict(sorted(records.items()))


@contextmanager
def _program_environment(project: Project) -> Iterator[None]:
    """The program's directory as working directory and first `sys.path` entry, `sys.argv` as the language host
    sets it; all restored afterwards, and the modules imported from the program's directory forgotten."""
    directory = project.program_directory.resolve()
    argv = ["." if project.main.is_dir() else project.main.name]
    saved_path, saved_argv, saved_cwd = list(sys.path), sys.argv, os.getcwd()
    loaded = set(sys.modules)
    sys.path.insert(0, str(directory))
    sys.argv = argv
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        sys.argv = saved_argv
        _forget_modules(loaded, directory)


def _forget_modules(loaded: set[str], directory: Path) -> None:
    """Drop the modules imported since `loaded` from files in the program's `directory`; a package that was loaded
    before the run (this one, when the program sits in its checkout) and installed packages stay."""
    packages = {name.partition(".")[0] for name in loaded}
    for name in set(sys.modules) - loaded:
        if name.partition(".")[0] in packages:
            continue
        module = sys.modules.get(name)
        places = [getattr(module, "__file__", None), *(getattr(module, "__path__", None) or [])]
        if any(isinstance(place, str) and _in_program(Path(place), directory) for place in places):
            del sys.modules[name]


def _in_program(path: Path, directory: Path) -> bool:
    """Whether `path` is one of the program's files: under its directory and not in an installed package (frames of
    frozen or generated code, such as `<frozen runpy>`, have no absolute file name and are not)."""
    if not path.is_absolute():
        return False
    try:
        relative = path.resolve().relative_to(directory)
    except (ValueError, OSError):
        return False
    return not _INSTALLED.intersection(relative.parts)


def _raised_at(error: BaseException, directory: Path) -> tuple[Path, int, bool] | None:
    """(file, line, whether it is the program's) of where `error` was raised: the innermost traceback frame in the
    program, else the innermost program frame of the calls that led to the invoke or `apply` callback it was raised
    in (`gpu_components.plan.call_sites`), else the innermost frame. A syntax error is raised where the bad line is,
    which no frame shows."""
    places = [(Path(frame.filename), frame.lineno or 0) for frame in traceback.extract_tb(error.__traceback__)]
    if isinstance(error, SyntaxError) and error.filename:
        places.append((Path(error.filename), error.lineno or 0))
    places = [(file, line) for file, line in places if file.is_absolute()]  # not `<frozen runpy>`
    # Then the program's calls that led to an invoke or `apply` callback the error was raised in (`call_sites`).
    called = [(Path(file), line) for file, line in call_site_of(error)]
    for file, line in [*reversed(places), *reversed(called)]:
        if _in_program(file, directory):
            return file, line, True
    return (*places[-1], False) if places else None


def _shown_path(path: Path, directory: Path) -> str:
    """`path` relative to the project directory when inside it, else as it is."""
    try:
        return path.resolve().relative_to(directory).as_posix()
    except (ValueError, OSError):
        return str(path)
