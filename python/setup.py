# SPDX-License-Identifier: MIT
"""Builds uriscan's extension module and command with CMake, from setuptools.

The C++ library lives one directory up in a checkout, and in cpp/ in an
sdist (the sdist command copies it there). python/CMakeLists.txt compiles
it once as position-independent code and links it into both
uriscan._uriscan and the uriscan command, which goes into the wheel as
uriscan/_bin/uriscan. Everything comes from the system (CMake, a C++17
compiler, Highway, mimalloc, xxHash, libpsl, libidn2, ISA-L, zstd, CLI11,
pybind11), so the build works offline:

    python3 -m venv --system-site-packages V
    V/bin/pip install --no-build-isolation --no-index ./python

CMAKE_BUILD_PARALLEL_LEVEL (or MAX_JOBS) sets the number of compile jobs;
the default is the number of CPUs. URISCAN_CMAKE_ARGS adds CMake arguments.
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
# The C++ tree: cpp/ in an sdist, else the checkout around python/.
ROOT = HERE / "cpp"
if not (ROOT / "CMakeLists.txt").is_file():
    ROOT = HERE.parent
# What of it the library and the command are built from (no tests,
# benchmarks, corpora or other front ends).
CPP_PARTS = ("CMakeLists.txt", "cmake", "include", "kernels", "src")


def require_build_modules():
    """Building offline takes wheel and pybind11 from the interpreter's own
    site-packages: Debian's (python3-wheel, python3-pybind11) belong to
    /usr/bin/python3. Another python3 lacks them, and pip would only say
    "invalid command 'bdist_wheel'"; say which interpreter to use."""
    missing = []
    for module in ("wheel", "pybind11"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module)
    if missing:
        sys.exit(
            "uriscan: building needs the Python modules " + " and ".join(
                missing) + ", which " + sys.executable + " does not have. "
            "Debian's (python3-wheel, python3-pybind11) belong to "
            "/usr/bin/python3: make the virtual environment from it, "
            "/usr/bin/python3 -m venv --system-site-packages V, then "
            "V/bin/pip install --no-build-isolation --no-index ./python")


require_build_modules()


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(uriscan\s+VERSION\s+([0-9.]+)", text)
    if not match:
        raise RuntimeError("no project(uriscan VERSION ...) in "
                           + str(ROOT / "CMakeLists.txt"))
    return match.group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        try:
            import pybind11
            pybind11_dir = pybind11.get_cmake_dir()
        except ImportError:  # Debian's pybind11-dev alone is enough too
            pybind11_dir = None
        out_dir = Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build_dir = Path(self.build_temp).resolve() / "cmake"
        build_dir.mkdir(parents=True, exist_ok=True)
        config = "Debug" if self.debug else "Release"
        args = [
            "-S", str(HERE), "-B", str(build_dir),
            "-DCMAKE_BUILD_TYPE=" + config,
            "-DPython_EXECUTABLE=" + sys.executable,
            "-DCMAKE_LIBRARY_OUTPUT_DIRECTORY=" + str(out_dir),
            "-DURISCAN_COMMAND_DIR=" + str(out_dir / "_bin"),
        ]
        if pybind11_dir:
            args.append("-Dpybind11_DIR=" + pybind11_dir)
        args += shlex.split(os.environ.get("URISCAN_CMAKE_ARGS", ""))
        jobs = (os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL")
                or os.environ.get("MAX_JOBS") or str(os.cpu_count() or 1))
        subprocess.run(["cmake"] + args, check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target",
                        "_uriscan", "uriscan_cli", "--parallel", jobs],
                       check=True)


class SdistWithSources(sdist):
    """An sdist that builds on its own: the C++ tree's CPP_PARTS go into
    it under cpp/."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        for part in CPP_PARTS:
            source, target = ROOT / part, Path(base_dir) / "cpp" / part
            if source.is_dir():
                shutil.copytree(source, target, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns(".*"))
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, target)


setup(
    version=project_version(),
    ext_modules=[CMakeExtension("uriscan._uriscan")],
    cmdclass={"build_ext": CMakeBuild, "sdist": SdistWithSources},
    zip_safe=False,
)
