# SPDX-License-Identifier: MIT
"""Test-only stand-ins for the verdict modules another helper writes (issue 31:
verdict/watchdog.py, choice.py, linuxread.py, agree.py), with the signatures of the
interface (and the optional Linux command line the watchdog helper added to predict and
predict_choice, with linuxread.command_line), for the tests of the verdict's own code until
those are merged.  `install()`
puts a stand-in in sys.modules, for the test process, only for a module that cannot be
imported; the tests that need a given prediction patch it in themselves
(mock.patch.object), so they hold with the real modules too."""

import importlib
import sys
import types

from clockbench_lib.verdict import model

PACKAGE = "clockbench_lib.verdict"
MODULES = ("watchdog", "choice", "linuxread", "agree")


def predict(record, cmdline=""):
    """tsc watched by hpet, stable at rest and across every event."""
    del cmdline
    settings = [model.AT_REST] + [f"{e.get('kind')} {e.get('seq')}" for e in
                                  (record.get("lifecycle") or {}).get("events") or []]
    return [model.WatchdogPrediction("tsc", "hpet", setting, model.STABLE,
                                     f"stand-in: tsc stable against hpet {setting}")
            for setting in settings]


def predict_choice(record, predictions, cmdline=""):
    """tsc when the record has one, else the first clock present."""
    del predictions, cmdline
    present = [c["name"] for c in record.get("clocks") or [] if c.get("present")]
    name = "tsc" if "tsc" in present else (present[0] if present else "jiffies")
    return name, f"stand-in: {name} rated highest"


def decisions(os_document):
    """One LinuxDecision per snapshot of kernel_clocksource; [] without it."""
    block = os_document.get("kernel_clocksource") or {}
    return [model.LinuxDecision(snap["when"], snap["current"], snap["available"])
            for snap in block.get("snapshots") or []]


def command_line(os_document):
    """The document's kernel_clocksource.cmdline, "" without it."""
    return (os_document.get("kernel_clocksource") or {}).get("cmdline") or ""


def agreements(predictions, chosen, decisions_):
    """The boot decision's clocksource against `chosen`."""
    del predictions
    boot = next((d for d in decisions_ if d.when == "boot"), None)
    if boot is None:
        return []
    return [model.Agreement("Linux's choice at boot agrees", boot.current == chosen,
                            f"stand-in: predicted {chosen}, Linux chose {boot.current}")]


STAND_INS = {"watchdog": {"predict": predict}, "choice": {"predict_choice": predict_choice},
             "linuxread": {"decisions": decisions, "command_line": command_line},
             "agree": {"agreements": agreements}}


def _missing():
    found = []
    for name in MODULES:
        try:
            importlib.import_module(f"{PACKAGE}.{name}")
        except ImportError:
            found.append(name)
    return found


def install():
    """Put a stand-in in sys.modules for each module that is not there; the names of
    those put in."""
    missing = _missing()
    for name in missing:
        module = types.ModuleType(f"{PACKAGE}.{name}")
        for attribute, value in STAND_INS[name].items():
            setattr(module, attribute, value)
        sys.modules[f"{PACKAGE}.{name}"] = module
    return missing
