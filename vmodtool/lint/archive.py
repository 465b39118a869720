"""Lint of the archive and its metadata (``docs/vassal-format.md`` §1): which
buildFile VASSAL reads, moduledata, the root's VassalVersion."""

from __future__ import annotations

from vmodtool.errors import VmodError
from vmodtool.lint.codes import registrar
from vmodtool.lint.context import LintRun, java_int_ok
from vmodtool.vassal.metadata import ExtensionMetadata, ModuleMetadata
from vmodtool.vassal.module import BUILDFILE_NAMES, version_tuple

__all__ = ["check_container", "check_root"]


register = registrar(__name__)

register("buildfile-name-vs-version", "error",
         "VASSAL picks buildFile (VassalVersion < 3.5) or buildFile.xml (>= 3.5) from "
         "the metadata's VassalVersion; the entry it picks is not in the archive")
register("both-buildfiles", "warning",
         "the archive holds both buildFile and buildFile.xml; only one is read")
register("no-moduledata", "warning",
         "no moduledata entry: the Module Manager has to scan the buildFile")
register("bad-moduledata", "error",
         "moduledata is not readable XML")
register("moduledata-name-mismatch", "warning",
         "moduledata <name> differs from the buildFile root name; saves are matched "
         "by name")
register("vassal-version-mismatch", "info",
         "moduledata VassalVersion differs from the buildFile root VassalVersion")
register("vassal-version-too-new", "error",
         "VassalVersion is 3.8 or newer: VASSAL 3.7 refuses to open the module")
register("vassal-version-newer", "warning",
         "the root VassalVersion is newer than VASSAL 3.7.26: opening shows a warning "
         "dialog")
register("missing-vassal-version", "warning",
         "the buildFile root has no VassalVersion")
register("legacy-root", "info",
         "the root is the deprecated VASSAL.launch.BasicModule (VASSAL still reads it)")

_NEWEST_MINOR = (3, 7)
_NEWEST_KNOWN = (3, 7, 26)


def check_container(run: LintRun) -> None:
    """Both buildFiles, the metadata, and the buildFile VASSAL will read."""
    m, bf = run.module, run.bf
    if not run.has_archive:
        return
    if all(name in run.files for name in BUILDFILE_NAMES):
        run.add("both-buildfiles", "the archive has both 'buildFile' and 'buildFile.xml'; "
                f"VASSAL reads only one (here '{m.buildfile_entry}'); the editor deletes "
                "'buildFile' when it saves", file=m.file)
    metadata = None
    kind = "extensiondata" if m.extensiondata is not None else "moduledata"
    raw = m.extensiondata if m.extensiondata is not None else m.moduledata
    if raw is not None:
        cls = ExtensionMetadata if kind == "extensiondata" else ModuleMetadata
        try:
            metadata = cls.parse(raw, file=f"{m.file}!{kind}")
        except VmodError as err:
            run.add("bad-moduledata", f"{kind} cannot be read: {err.message}",
                    file=run.label(kind))
    elif not bf.is_extension:
        run.add("no-moduledata", "no 'moduledata' entry: VASSAL takes the module name and "
                "versions from the root of 'buildFile' (write moduledata, §1.3)",
                file=m.file)
    # the buildfile name VASSAL reads (GameModule.build, §1.4)
    if metadata is not None:
        meta_version: str | None = metadata.vassal_version
        source = f"{kind} VassalVersion {meta_version!r}"
    elif raw is None and "buildFile" in run.files:
        meta_version = bf.vassal_version if m.buildfile_entry == "buildFile" else None
        source = f"the 'buildFile' root VassalVersion {meta_version!r}"
    else:
        meta_version = None
        source = "no metadata (the running VASSAL's version)"
    if meta_version is not None:
        wanted = "buildFile" if version_tuple(meta_version)[:2] < (3, 5) else "buildFile.xml"
        if wanted not in run.files:
            present = next(n for n in BUILDFILE_NAMES if n in run.files)
            run.add("buildfile-name-vs-version",
                    f"VASSAL reads '{wanted}' ({source}), but the archive has only "
                    f"'{present}': VASSAL reports 'no buildfile'", file=m.file,
                    detail={"expected_entry": wanted, "vassal_version": meta_version})
    if isinstance(metadata, ModuleMetadata):  # kind == "moduledata"
        if metadata.name.strip() != bf.name.strip():
            run.add("moduledata-name-mismatch",
                    f"moduledata name {metadata.name!r} differs from the buildFile root "
                    f"name {bf.name!r}", file=run.label("moduledata"))
        if metadata.vassal_version and bf.vassal_version and \
                metadata.vassal_version != bf.vassal_version:
            run.add("vassal-version-mismatch",
                    f"moduledata VassalVersion {metadata.vassal_version!r}, buildFile root "
                    f"{bf.vassal_version!r} (write the same value in both, §1.4)",
                    file=run.label("moduledata"))
    if metadata is not None and version_tuple(metadata.vassal_version)[:2] > _NEWEST_MINOR:
        run.add("vassal-version-too-new",
                f"{kind} VassalVersion {metadata.vassal_version!r}: VASSAL 3.7 refuses to "
                "open it ('module too new')", file=run.label(kind))


def check_root(run: LintRun) -> None:
    """The root: its class, its VassalVersion, its nextPieceSlotId."""
    bf, root = run.bf, run.bf.root
    if bf.is_legacy_root:
        run.add("legacy-root", "root element VASSAL.launch.BasicModule is deprecated; "
                "write VASSAL.build.GameModule", root)
    version = bf.vassal_version
    if not version:
        run.add("missing-vassal-version", "the root has no VassalVersion attribute", root)
    elif version_tuple(version)[:3] > _NEWEST_KNOWN:
        too_new = version_tuple(version)[:2] > _NEWEST_MINOR
        run.add("vassal-version-too-new" if too_new and run.module.moduledata is None
                else "vassal-version-newer",
                f"root VassalVersion {version!r} is newer than VASSAL 3.7.26", root)
    value = root.get("nextPieceSlotId")
    if value is not None and not java_int_ok(value):
        run.add("bad-int-attribute", f"nextPieceSlotId={value!r} is not an integer: VASSAL "
                "refuses to load the module (IllegalBuildException)", root,
                detail={"attribute": "nextPieceSlotId", "value": value})
