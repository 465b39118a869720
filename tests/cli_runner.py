"""Running ``vmodtool`` from a test: in process with stdout and stderr apart
(:func:`invoke`), or as a child process that reports its peak memory
(:data:`PEAK_RSS_CHILD`)."""

from __future__ import annotations

from click.testing import CliRunner

from vmodtool.cli import cli


def invoke(args: object) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of ``vmodtool ARGS`` run in process."""
    try:
        runner = CliRunner(mix_stderr=False)          # Click 8.1
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(cli, [str(a) for a in args], prog_name="vmodtool")
    return result.exit_code, result.stdout, result.stderr


#: a child ``python -c PEAK_RSS_CHILD.format(gib=N) REPORT ARGS…``: it limits its
#: own address space to N GiB and, at exit, writes its peak RSS (VmHWM, KiB) to
#: REPORT — the memory after exec, whereas ``ru_maxrss`` of a forked child also
#: counts the pytest process it was forked from
PEAK_RSS_CHILD = """
import atexit, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({gib} * 1024 ** 3, {gib} * 1024 ** 3))
report = sys.argv.pop(1)
def peak():
    with open("/proc/self/status") as status:
        kib = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(report, "w") as out:
        out.write(kib)
atexit.register(peak)
sys.argv[0] = "vmodtool"
from vmodtool.cli import main
main()
"""
