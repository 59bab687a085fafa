"""The public module is typed (py.typed; typing.get_type_hints works on every public function
and method, also without numpy), and help() names every keyword it takes."""

import inspect
import json
import pathlib
import subprocess
import sys
import textwrap

import bpeforge


def _public_callables():
    for name in bpeforge.__all__:
        obj = getattr(bpeforge, name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, property):
                    yield f"{name}.{attr}", member.fget
                elif callable(member) or isinstance(member, (classmethod, staticmethod)):
                    yield f"{name}.{attr}", getattr(obj, attr)
        else:
            yield name, obj


def test_the_package_is_marked_typed():
    assert (pathlib.Path(bpeforge.__file__).parent / "py.typed").is_file()


CHILD = textwrap.dedent(
    """
    import inspect, json, sys, typing
    sys.modules["numpy"] = None  # numpy is not installed: importing it fails
    import bpeforge
    failed = []
    for name in bpeforge.__all__:
        obj = getattr(bpeforge, name)
        members = [obj]
        if inspect.isclass(obj):
            members += [m.fget if isinstance(m, property) else getattr(obj, a)
                        for a, m in vars(obj).items()
                        if (not a.startswith("_") or a == "__init__")
                        and (callable(m) or isinstance(m, property))]
        for m in members:
            try:
                typing.get_type_hints(m)
            except Exception as e:
                failed.append(f"{getattr(m, '__qualname__', m)}: {e!r}")
    print(json.dumps(failed))
    """
)


def test_type_hints_resolve_without_numpy(subprocess_env):
    result = subprocess.run([sys.executable, "-c", CHILD], env=subprocess_env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def test_help_names_every_keyword():
    """Each parameter of a public function appears in its docstring (help() tells of it)."""
    missing = []
    for name, fn in _public_callables():
        doc = inspect.getdoc(fn) or ""
        try:
            parameters = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        for p in parameters:
            if p not in ("self", "cls") and f"{p}" not in doc:
                missing.append(f"{name}({p})")
    assert missing == []
