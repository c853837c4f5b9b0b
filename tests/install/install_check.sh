#!/usr/bin/env bash
# Checks of the installed tree and the Debian package (tests/install/CMakeLists.txt names them).
#   install_check.sh CHECK BUILD_DIR SOURCE_DIR WORK_DIR [XVFB_RUN]
# Nothing here needs root or touches /usr: everything is installed under WORK_DIR.
set -euo pipefail
check=$1 build=$2 src=$3 work=$4 xvfb=${5:-}
rm -rf "$work" && mkdir -p "$work"
cd "$work"  # outside the source and build trees

fail() { echo "FAIL: $*" >&2; exit 1; }

# cmake --install into one prefix, then move it: the copy must work on its own (relocatable).
install_relocated() {
  cmake --install "$build" --prefix "$work/first" >/dev/null
  mv "$work/first" "$work/moved"
  echo "$work/moved"
}

case $check in
  cli-presets)  # the installed attnlab-cli computes every installed preset
    prefix=$(install_relocated)
    n=0
    for preset in "$prefix"/share/attnlab/presets/*.json; do
      "$prefix/bin/attnlab-cli" compute "$preset" --format text >/dev/null || fail "compute $preset"
      n=$((n + 1))
    done
    [ "$n" -ge 10 ] || fail "only $n presets installed"
    echo "computed $n installed presets with $prefix/bin/attnlab-cli"
    ;;
  window)  # the installed window opens its default example from the installed presets
    prefix=$(install_relocated)
    export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config XDG_DATA_HOME=$work/home/.local/share
    mkdir -p "$HOME"
    $xvfb -a -s "-screen 0 1280x800x24" "$prefix/bin/attnlab" --screenshot "$work/installed.png" --size 1280x800
    # The same binary with its presets gone falls back to the compiled-in example: a different
    # picture proves the first run read <prefix>/share/attnlab/presets (no build path is compiled in).
    mv "$prefix/share/attnlab/presets" "$work/presets-away"
    $xvfb -a -s "-screen 0 1280x800x24" "$prefix/bin/attnlab" --screenshot "$work/no-presets.png" --size 1280x800
    /usr/bin/python3 - "$work/installed.png" "$work/no-presets.png" <<'PY'
import sys
from PIL import Image, ImageChops
a, b = (Image.open(p).convert("RGB") for p in sys.argv[1:3])
assert a.size == (1280, 800), f"screenshot is {a.size}, expected 1280x800"
colours = len(a.getcolors(1 << 20) or [])
assert colours > 50, f"screenshot has {colours} colours: blank?"
diff = ImageChops.difference(a, b).getbbox()
assert diff is not None, "same picture with and without the installed presets"
print(f"installed window: {a.size[0]}x{a.size[1]}, {colours} colours; without presets differs in {diff}")
PY
    ;;
  no-build-path)  # no installed file names the source or build tree
    prefix=$(install_relocated)
    for f in "$prefix"/bin/*; do
      for tree in "$src" "$build"; do
        if strings "$f" | grep -F -- "$tree" >/dev/null; then
          fail "$f contains $tree: $(strings "$f" | grep -F -- "$tree" | head -3)"
        fi
      done
    done
    echo "no build path in: $(ls "$prefix/bin" | tr '\n' ' ')"
    ;;
  metadata)  # the launcher entry, AppStream metadata and MIME type pass their validators
    prefix=$(install_relocated)
    desktop-file-validate "$prefix/share/applications/attnlab.desktop" | { grep -v "more than one main category" || true; }
    appstreamcli validate --no-net --pedantic "$prefix/share/metainfo/io.github.attnlab.attnlab.metainfo.xml"
    xmllint --noout "$prefix/share/mime/packages/attnlab.xml"
    grep -q '^Exec=attnlab %f$' "$prefix/share/applications/attnlab.desktop" || fail "Exec"
    for size in 48 64 128 256 512; do
      png=$prefix/share/icons/hicolor/${size}x${size}/apps/attnlab.png
      file "$png" | grep -q "PNG image data, $size x $size, 8-bit/color RGBA" || fail "$(file "$png")"
    done
    [ -f "$prefix/share/icons/hicolor/scalable/apps/attnlab.svg" ] || fail "no SVG icon"
    ;;
  mime)  # a file manager's sniffing (GLib, with a private MIME database) recognises scenario files
    prefix=$(install_relocated)
    mkdir -p data/mime/packages
    cp /usr/share/mime/packages/freedesktop.org.xml "$prefix/share/mime/packages/attnlab.xml" data/mime/packages/
    XDG_DATA_HOME=$work/data update-mime-database data/mime
    printf '{"format": "attnlab/1", "X": [[1]]}\n' >one-line.json
    cp "$prefix/share/attnlab/presets/udl-12-2-multihead.json" preset.json
    "$prefix/bin/attnlab-cli" validate preset.json >/dev/null
    printf '{"X": [[1]], "format": "attnlab/1"}\n' >other-order.json
    cp other-order.json lesson.attnlab.json  # found by its name alone
    printf '{"name": "not attnlab"}\n' >plain.json
    type_of() { XDG_DATA_HOME=$work/data XDG_DATA_DIRS=$work/data gio info -a standard::content-type "$1" |
                sed -n 's/^ *standard::content-type: //p'; }
    for f in one-line.json preset.json lesson.attnlab.json; do
      [ "$(type_of $f)" = application/x-attnlab-scenario ] || fail "$f: $(type_of $f)"
    done
    for f in other-order.json plain.json; do
      [ "$(type_of $f)" = application/json ] || fail "$f: $(type_of $f)"
    done
    echo "application/x-attnlab-scenario: one-line.json preset.json lesson.attnlab.json; application/json: other-order.json plain.json"
    ;;
  icon-svg)  # assets/icons/attnlab.svg is what attnlab-icon draws the PNGs from
    "$build/packaging/attnlab-icon" --svg >drawn.svg
    diff -u "$src/assets/icons/attnlab.svg" drawn.svg || fail "assets/icons/attnlab.svg differs from attnlab-icon --svg"
    xmllint --noout drawn.svg
    ;;
  package)  # cpack -G DEB from the build's artifacts; the package's files; running them unpacked
    cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/out" >cpack.log || { cat cpack.log; fail cpack; }
    deb=$(ls "$work"/out/attnlab_*.deb)
    dpkg-deb -c "$deb" | awk '{print $6}' >contents.txt
    for f in ./usr/bin/attnlab ./usr/bin/attnlab-cli ./usr/share/attnlab/presets/udl-12-2-multihead.json \
             ./usr/share/applications/attnlab.desktop ./usr/share/icons/hicolor/48x48/apps/attnlab.png \
             ./usr/share/icons/hicolor/512x512/apps/attnlab.png ./usr/share/icons/hicolor/scalable/apps/attnlab.svg \
             ./usr/share/mime/packages/attnlab.xml ./usr/share/metainfo/io.github.attnlab.attnlab.metainfo.xml \
             ./usr/share/doc/attnlab/README.md ./usr/share/doc/attnlab/GUIDE.md \
             ./usr/share/man/man1/attnlab.1 ./usr/share/man/man1/attnlab-cli.1 \
             ./usr/share/bash-completion/completions/attnlab-cli; do
      grep -qxF "$f" contents.txt || fail "$deb lacks $f"
    done
    if grep -E 'harness|\.a$|\.h$|/include/|/lib/|gtest|gmock|cmake' contents.txt; then fail "unexpected files above"; fi
    depends=$(dpkg-deb -f "$deb" Depends)
    for d in fonts-dejavu-core libc6 libglfw3 libopenblas; do
      grep -q "$d" <<<"$depends" || fail "Depends lacks $d: $depends"
    done
    [ "$(dpkg-deb -f "$deb" Section)" = science ] || fail "Section"
    dpkg -x "$deb" root
    root/usr/bin/attnlab-cli --help >/dev/null
    [ "$(root/usr/bin/attnlab-cli --version)" = "attnlab-cli 0.1.0" ] || fail "the unpacked attnlab-cli --version"
    root/usr/bin/attnlab-cli compute root/usr/share/attnlab/presets/udl-12-2-multihead.json --format text >/dev/null
    echo "$deb: $(wc -l <contents.txt) entries; Depends: $depends"
    ;;
  *) fail "unknown check $check" ;;
esac
echo "PASS $check"
