"""The build glue of `pip install .`: the compiled module comes from the project's own CMake build (target
stasim_python, tests off), and the shipped configs are copied into the package (stasim/data/configs), where the
module finds them from its own location. The version is CMakeLists.txt's project version, the one
`stasim --version` prints. Dependencies are the Debian packages of tools/setup; nothing is downloaded.
"""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def project_version():
    text = (ROOT / "CMakeLists.txt").read_text()
    return re.search(r"project\(stasim VERSION ([0-9.]+)", text).group(1)


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures and builds target stasim_python with CMake, then copies the module where setuptools expects it."""

    def build_extension(self, ext):
        # build-pip/ beside the usual build/: the same depth, so ccache (with CCACHE_BASEDIR set above both trees)
        # reuses the objects of a build/ made before.
        build_dir = ROOT / "build-pip"
        configure = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                     "-DBUILD_TESTING=OFF", f"-DPython3_EXECUTABLE={sys.executable}"]
        # CMake reads CMAKE_CXX_COMPILER_LAUNCHER (e.g. ccache) from the environment itself; the top CMakeLists
        # also picks ccache up when it is installed.
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "stasim_python", "-j", jobs], check=True)
        built = list((build_dir / "python" / "stasim").glob("_stasim*.so"))
        if len(built) != 1:
            raise RuntimeError(f"the CMake build made {len(built)} modules in {build_dir / 'python' / 'stasim'}")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


class BuildWithConfigs(build_py):
    """The pure-Python files, and the shipped configs as stasim/data/configs (model, hardware, sweep YAML)."""

    def run(self):
        super().run()
        data = Path(self.build_lib) / "stasim" / "data" / "configs"
        if data.exists():
            shutil.rmtree(data)
        shutil.copytree(ROOT / "configs", data)


os.makedirs("build/pip", exist_ok=True)  # egg_info wants its folder to exist
# setuptools' own files go to build/pip (beside the CMake tree tools/setup makes in build/).
setup(version=project_version(), ext_modules=[CMakeExtension("stasim._stasim")],
      cmdclass={"build_ext": CMakeBuild, "build_py": BuildWithConfigs},
      options={"build": {"build_base": "build/pip"}, "egg_info": {"egg_base": "build/pip"}})
