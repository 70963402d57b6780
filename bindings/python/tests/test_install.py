"""pip install ./bindings/python into a fresh virtual environment, then import from elsewhere: the
installed package carries its library and needs no environment variable."""

import os
import subprocess
import sys
import venv

import interlock
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]


def test_installed_package_works_from_another_directory(tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    environment = {k: v for k, v in os.environ.items() if k not in ("INTERLOCK_LIBRARY", "PYTHONPATH")}
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", str(PACKAGE)], check=True, env=environment,
                   cwd=tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    script = (
        "import interlock, pathlib\n"
        "assert pathlib.Path(interlock.__file__).resolve().parent.joinpath('libinterlock.so').exists()\n"
        "r = interlock.Router()\n"
        "r.add_route('myapp://user/:id(\\\\d+)', lambda q: 'user ' + q.params['id'], name='user')\n"
        "assert r.resolve('myapp://user/42').response.body == b'user 42'\n"
        "assert r.url_for('user', id=7) == 'myapp://user/7'\n"
        "print('installed', interlock.__version__, interlock.__file__)\n"
    )
    out = subprocess.run([str(python), "-c", script], check=True, env=environment, cwd=elsewhere,
                         capture_output=True, text=True)
    assert f"installed {interlock.__version__}" in out.stdout and str(env_dir) in out.stdout


def test_missing_library_is_a_clear_import_error(tmp_path):
    environment = dict(os.environ, INTERLOCK_LIBRARY=str(tmp_path / "nope.so"),
                       PYTHONPATH=str(PACKAGE))
    out = subprocess.run([sys.executable, "-c", "import interlock"], env=environment, cwd=tmp_path,
                         capture_output=True, text=True)
    assert out.returncode != 0
    assert "ImportError" in out.stderr and "nope.so" in out.stderr and "INTERLOCK_LIBRARY" in out.stderr
