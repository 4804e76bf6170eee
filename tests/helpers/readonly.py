"""A read-only view of a folder, for the read-only home tests.

As a normal user, the folder's write bits are cleared (and restored after). As
root, permission bits do not stop writes, so the folder is bind-mounted
read-only instead (the kernel refuses every write with EROFS); where neither
works the test is skipped, saying why.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


def _chmod_tree(root: Path, writable: bool) -> None:
    paths = [root, *root.rglob("*")]
    for p in paths:
        if p.is_symlink():
            continue
        mode = p.stat().st_mode
        bits = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
        p.chmod(mode | stat.S_IWUSR if writable else mode & ~bits)


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[Path]:
    """``folder`` (or a read-only bind mount of it) that no write can change; and how."""
    if os.geteuid() != 0:
        _chmod_tree(folder, writable=False)
        try:
            yield folder
        finally:
            _chmod_tree(folder, writable=True)
        return
    view = folder.with_name(folder.name + "-ro")
    view.mkdir()
    mounted = subprocess.run(["mount", "--bind", str(folder), str(view)], capture_output=True)
    if mounted.returncode != 0:
        view.rmdir()
        pytest.skip(f"root without mount: cannot make a read-only folder ({mounted.stderr!r})")
    try:
        ro = subprocess.run(["mount", "-o", "remount,ro,bind", str(view)], capture_output=True)
        if ro.returncode != 0:
            pytest.skip(f"cannot remount read-only: {ro.stderr!r}")
        yield view
    finally:
        subprocess.run(["umount", str(view)], check=True)
        view.rmdir()
