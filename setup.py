"""Builds the extension bpeforge._bpeforge with CMake (see pyproject.toml for the rest).

The CMake build directory is `build/` (the one scripts/quickstart.sh and scripts/test.sh use,
so an install after them only relinks), or $BPEFORGE_BUILD_DIR.
"""

import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
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
        built = os.path.join(build_dir, "python", "bpeforge", os.path.basename(
            self.get_ext_filename(ext.name)))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


setup(
    ext_modules=[Extension("bpeforge._bpeforge", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)
