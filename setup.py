"""Builds the extension bpeforge._bpeforge with CMake (see pyproject.toml for the rest).

The CMake build directory is `build/` (the one scripts/quickstart.sh and scripts/test.sh use,
so an install after them only relinks), or $BPEFORGE_BUILD_DIR.

With $BPEFORGE_DIST_STAGE (scripts/build-dist.sh) the package is assembled instead from that
relocatable install tree: the extension, the `bpeforge` command in bin/, the shared libraries
they load in lib/ and those libraries' licences; the wheel then installs the command too.
"""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
DIST_STAGE = os.environ.get("BPEFORGE_DIST_STAGE")
# What a relocatable build adds to the package, made fresh by every build.
BUNDLED = ("bin", "lib", "licenses")


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = self.get_ext_fullpath(ext.name)
        package = os.path.dirname(target)
        for part in BUNDLED:
            shutil.rmtree(os.path.join(package, part), ignore_errors=True)
        os.makedirs(package, exist_ok=True)
        if DIST_STAGE:
            self.assemble_relocatable(DIST_STAGE, package, os.path.basename(target))
            return
        build_dir = os.environ.get("BPEFORGE_BUILD_DIR", os.path.join(ROOT, "build"))
        # The interpreter behind a venv, spelled as the scripts spell it, so that pip and the
        # scripts share one CMake configuration.
        python = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
        configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DBPEFORGE_BUILD_PYTHON=ON",
                     f"-DPython_EXECUTABLE={python}"]
        if not os.path.exists(os.path.join(build_dir, "CMakeCache.txt")):
            configure += ["-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"]
        subprocess.check_call(configure)
        subprocess.check_call(["cmake", "--build", build_dir, "--target", "_bpeforge"])
        built = os.path.join(build_dir, "python", "bpeforge", os.path.basename(target))
        shutil.copyfile(built, target)

    @staticmethod
    def assemble_relocatable(stage, package, extension):
        shutil.copyfile(os.path.join(stage, "python", "bpeforge", extension),
                        os.path.join(package, extension))
        os.makedirs(os.path.join(package, "bin"))
        shutil.copy2(os.path.join(stage, "bin", "bpeforge"), os.path.join(package, "bin"))
        # A wheel holds no symbolic links: each library once, under the name the loader asks.
        os.makedirs(os.path.join(package, "lib"))
        for name in sorted(os.listdir(os.path.join(stage, "lib"))):
            path = os.path.join(stage, "lib", name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            soname = subprocess.check_output(["patchelf", "--print-soname", path], text=True)
            shutil.copy2(path, os.path.join(package, "lib", soname.strip()))
        shutil.copytree(os.path.join(stage, "share", "doc", "bpeforge", "third-party"),
                        os.path.join(package, "licenses"))


setup(
    ext_modules=[Extension("bpeforge._bpeforge", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    entry_points={"console_scripts": ["bpeforge = bpeforge._command:main"]} if DIST_STAGE else {},
)
