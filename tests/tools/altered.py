# SPDX-License-Identifier: MIT
"""Altered copies of the real fixture matrices (tests/tools/fixtures/matrix/), made where a
test asks, for what compare must tell apart or pair: the same host name with another CPU,
the same input twice (a byte copy), repeats that differ by noise only, the same with one
clock made slower, and a matrix of many environments.  Every figure changed is said here;
everything else is the real capture's."""

import copy
import json
import os
import random
import shutil

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "matrix")
SAMPLE = os.path.join(FIXTURES, "sample")
AMD = os.path.join(FIXTURES, "amd")
OTHER_CPU = "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"
# The figures of a clock's read cost that scale when the clock gets slower or noisier.
READ_FIGURES = ("min", "p50", "p90", "p99", "p999", "max")


def _load(path):
    with open(path, encoding="utf-8") as source:
        return json.load(source)


def _dump(path, document):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        json.dump(document, out, indent=2)
        out.write("\n")


def byte_copy(src, dst):
    """`src` copied as it is: the same runs under another path."""
    shutil.copytree(src, dst)
    return dst


def other_cpu_copy(src, dst, cpu=OTHER_CPU):
    """A copy of the clockbench/2 matrix `src` whose host keeps its name but has CPU `cpu`
    (in every record's runner.host and the manifest): another machine of one name."""
    shutil.copytree(src, dst)
    manifest = _load(os.path.join(dst, "manifest.json"))
    manifest["host"]["cpu"]["model"] = cpu
    _dump(os.path.join(dst, "manifest.json"), manifest)
    for env in manifest["environments"]:
        for run in env["runs"]:
            path = os.path.join(dst, run["json"])
            record = _load(path)
            record["runner"]["host"]["cpu"]["model"] = cpu
            _dump(path, record)
    return dst


def _scale_clock(clock, factor):
    read = clock.get("read_ns")
    if not read:
        return
    for key in READ_FIGURES:
        if read.get(key) is not None:
            read[key] = max(0, round(read[key] * factor))
    if clock.get("batch_ns_per_read") is not None:
        clock["batch_ns_per_read"] = clock["batch_ns_per_read"] * factor


def repeats_copy(src, dst, repeats=5, seed=1, noise=0.1, slower=None, factor=2.0,
                 envs=None):
    """A matrix of `repeats` runs per environment of `src` (default: all; `envs` maps
    new environment names to the source's), each the source's run (in turn) with every
    clock's read-cost figures scaled by its own draw from 1 ± `noise` (random.Random(seed)),
    as repeats on a noisy host differ; the clock `slower` then costs `factor` times more
    in every environment.  Records get a run id each; the logs are not copied."""
    manifest = _load(os.path.join(src, "manifest.json"))
    rng = random.Random(seed)
    envs = envs or {env["name"]: env["name"] for env in manifest["environments"]}
    entries = {env["name"]: env for env in manifest["environments"]}
    out = copy.deepcopy(manifest)
    out["environments"], out["repeats"] = [], repeats
    for name, source_name in envs.items():
        entry = copy.deepcopy(entries[source_name])
        entry["name"], runs, entry["runs"] = name, entry["runs"], []
        with_json = [run for run in runs if run.get("json")]
        for number in range(1, repeats + 1):
            run = copy.deepcopy(with_json[(number - 1) % len(with_json)])
            record = _load(os.path.join(src, run["json"]))
            for clock in record["clocks"]:
                _scale_clock(clock, rng.uniform(1 - noise, 1 + noise)
                             * (factor if clock["name"] == slower else 1))
            record["run_id"] = f"{os.path.basename(dst)}-{seed}-{name}-{number}"
            run.update(run=number, json=f"{name}/run-{number}.json", log=None)
            _dump(os.path.join(dst, run["json"]), record)
            entry["runs"].append(run)
        out["environments"].append(entry)
    _dump(os.path.join(dst, "manifest.json"), out)
    return dst


def many_envs_copy(src, dst, count=12, repeats=2):
    """A matrix of `count` environments made of `src`'s in turn (the built-in names, then
    NAME-2 ...), `repeats` runs each, with noise as repeats_copy."""
    names = [env["name"] for env in _load(os.path.join(src, "manifest.json"))["environments"]]
    wanted, number = {}, 0
    while len(wanted) < count:
        base = names[number % len(names)]
        turn = number // len(names)
        wanted[base if turn == 0 else f"{base}-{turn + 1}"] = base
        number += 1
    return repeats_copy(src, dst, repeats=repeats, envs=wanted)


def with_histograms(record, values_of):
    """`record` with a histogram (read_ns.hist, as the guest writes it) for every timed
    clock: of the read costs `values_of(clock_name)` returns, whose min and max replace
    the report's."""
    from tests.tools.test_histogram import encode  # pylint: disable=import-outside-toplevel
    for clock in record["clocks"]:
        read = clock.get("read_ns")
        if not read:
            continue
        values = values_of(clock["name"])
        read.update(hist=encode(values), min=min(values), max=max(values))
    return record


def histograms_copy(src, dst, values_of):
    """A copy of the matrix `src` whose records carry histograms (with_histograms) of
    `values_of(env, run, clock)` and a run id each."""
    shutil.copytree(src, dst)
    manifest = _load(os.path.join(dst, "manifest.json"))
    for env in manifest["environments"]:
        for run in env["runs"]:
            if not run.get("json"):
                continue
            path = os.path.join(dst, run["json"])
            record = with_histograms(_load(path), lambda clock, e=env["name"], r=run["run"]:
                                     values_of(e, r, clock))
            record["run_id"] = f"{os.path.basename(dst)}-{env['name']}-{run['run']}"
            _dump(path, record)
    return dst


def host_state_copy(src, dst, states):
    """A copy of the clockbench/2 matrix `src` whose first len(`states`) records (in the
    manifest's order) carry the host state the runner records (runner.host_state), one
    of `states` each; the rest have none, as records made before it."""
    shutil.copytree(src, dst)
    manifest = _load(os.path.join(dst, "manifest.json"))
    paths = [os.path.join(dst, run["json"]) for env in manifest["environments"]
             for run in env["runs"]]
    for path, state in zip(paths, states):
        record = _load(path)
        record["runner"]["host_state"] = state
        _dump(path, record)
    return dst
