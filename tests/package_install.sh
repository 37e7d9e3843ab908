#!/usr/bin/env bash
# The .deb installs and runs: builds the package with CPack from BUILD_DIR, unpacks it into a
# scratch root (dpkg-deb -x, no root needed), checks its files and control fields, validates
# the desktop entry, AppStream metainfo, MIME type and man pages with Debian's own tools, and
# runs `grademl --version`, an import and the studio's headless screenshot from the unpacked
# files (opening a .grademl project as the desktop entry's Exec line does).
# Usage: tests/package_install.sh CPACK BUILD_DIR VERSION
# SPDX-License-Identifier: GPL-3.0-or-later
set -euo pipefail
cpack=$1
build=$2
version=$3
work=$(mktemp -d "${TMPDIR:-/tmp}/gml-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "package_install: $*" >&2; exit 1; }

(cd "$build" && "$cpack" -G DEB -B "$work/pkg" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack failed"; }
deb=$(ls "$work"/pkg/grademl-studio_"$version"_*.deb) || fail "no grademl-studio_${version}_*.deb written"
echo "package: $(basename "$deb"), $(stat -c %s "$deb") bytes"

# Control fields: the runtime libraries found by dpkg-shlibdeps.
depends=$(dpkg-deb -f "$deb" Depends)
for lib in libqt6core6 libqt6gui6 libqt6widgets6 libsqlite3-0 libprotobuf32 libqcustomplot; do
  grep -q "$lib" <<<"$depends" || fail "Depends lacks $lib: $depends"
done
[ "$(dpkg-deb -f "$deb" Package)" = grademl-studio ] || fail "wrong package name"
[ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || fail "wrong version"

root="$work/root"
dpkg-deb -x "$deb" "$root"
share="$root/usr/share"
for f in usr/bin/grademl usr/bin/grademl-studio \
         usr/share/applications/org.grademl.studio.desktop \
         usr/share/metainfo/org.grademl.studio.metainfo.xml \
         usr/share/mime/packages/org.grademl.studio.xml \
         usr/share/icons/hicolor/scalable/apps/org.grademl.studio.svg \
         usr/share/icons/hicolor/scalable/mimetypes/application-x-grademl-project.svg \
         usr/share/man/man1/grademl.1.gz usr/share/man/man1/grademl-studio.1.gz \
         usr/share/doc/grademl-studio/copyright usr/share/grademl-studio/demo/README.md; do
  [ -f "$root/$f" ] || fail "$f is not in the package"
done

# Desktop integration, checked by the tools desktops use.
desktop-file-validate "$share/applications/org.grademl.studio.desktop" || fail "desktop entry invalid"
appstreamcli validate --no-net "$share/metainfo/org.grademl.studio.metainfo.xml" || fail "metainfo invalid"
grep -qx 'MimeType=application/x-grademl-project;' "$share/applications/org.grademl.studio.desktop" ||
  fail "the desktop entry does not open .grademl projects"
exec_line=$(sed -n 's/^Exec=//p' "$share/applications/org.grademl.studio.desktop")
[ "$exec_line" = "grademl-studio %f" ] || fail "unexpected Exec line: $exec_line"
cp -r "$share/mime" "$work/mime"
update-mime-database "$work/mime" || fail "update-mime-database failed"
grep -q '^80:application/x-grademl-project:\*\.grademl$' "$work/mime/globs2" || fail "*.grademl is not mapped to the project type"
for page in grademl grademl-studio; do
  warnings=$(zcat "$share/man/man1/$page.1.gz" | groff -man -Tutf8 -ww -z 2>&1) || fail "man page $page does not render"
  [ -z "$warnings" ] || fail "man page $page: $warnings"
done

# The executables, from the unpacked files only.
"$root/usr/bin/grademl" --version | grep -qx "grademl $version" || fail "grademl --version"
cp -r "$share/grademl-studio/demo" "$work/demo"
"$root/usr/bin/grademl" import "$work/demo" --project "$work/demo.grademl" > "$work/import.log" 2>&1 ||
  { cat "$work/import.log"; fail "grademl import of the installed demo failed"; }
# Opening the project as a file manager does: the desktop entry's command with the file.
studio_cmd=${exec_line/\%f/$work/demo.grademl}
QT_QPA_PLATFORM=offscreen "$root/usr/bin/${studio_cmd%% *}" --screenshot "$work/shot.png" --size 1000x700 \
  "${studio_cmd#* }" > "$work/studio.log" 2>&1 || { cat "$work/studio.log"; fail "studio screenshot failed"; }
[ "$(head -c 8 "$work/shot.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "screenshot is not a PNG"
size=$(stat -c %s "$work/shot.png")
[ "$size" -gt 20000 ] || fail "screenshot is only $size bytes"
echo "package_install: ok ($(dpkg-deb -f "$deb" Installed-Size) KiB installed; screenshot $size bytes)"
