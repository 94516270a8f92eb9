"""Loads one of scripts/' programs (report, regress, ab: files without a .py suffix) as a
module, so the tests call its functions. Imported from the tests' own folder, which
`unittest discover -s scripts/tests` puts on sys.path."""

import importlib.machinery
import importlib.util
import os

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_script(name, module_name=None):
    """scripts/<name> as a fresh module (named `module_name`, default cb_<name>)."""
    loader = importlib.machinery.SourceFileLoader(module_name or "cb_" + name,
                                                  os.path.join(SCRIPTS, name))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
