#!/bin/bash
# Tests of the kernel build machinery on fixtures: the quilt series
# application (success, and the failure naming the patch) and the check that
# every option of a Kconfig fragment reached the final .config.
# Prints "PASS name" / "FAIL name" lines.
set -uo pipefail
. "$(dirname "$0")/../pass-fail.sh"
fx=$top/tests/kernel/fixtures
# A good series applies in order.
cp -r "$fx/tree" "$tmp/good"
"$top/scripts/apply-patches.sh" "$tmp/good" "$fx/good" >"$tmp/good.out" 2>&1
t quilt-series-applies test $? -eq 0
t quilt-series-result diff -u <(printf 'line one\nline 2\nline three\nline four\n') "$tmp/good/hello.txt"
t quilt-reports-applied grep -q '^applied 0002-four.patch$' "$tmp/good.out"

# A tree whose .pc remembers another patch directory (quilt prefers it to
# QUILT_PATCHES) still gets this series.
cp -r "$fx/tree" "$tmp/stale"
mkdir -p "$tmp/stale/.pc"
echo 2 >"$tmp/stale/.pc/.version"
echo "$tmp/elsewhere" >"$tmp/stale/.pc/.quilt_patches"
"$top/scripts/apply-patches.sh" "$tmp/stale" "$fx/good" >"$tmp/stale.out" 2>&1
t quilt-stale-patch-dir grep -qx 'line four' "$tmp/stale/hello.txt"

# A patch that does not apply stops the build and is named.
cp -r "$fx/tree" "$tmp/bad"
"$top/scripts/apply-patches.sh" "$tmp/bad" "$fx/bad" >"$tmp/bad.out" 2>&1
t quilt-bad-patch-fails test $? -eq 1
t quilt-bad-patch-named grep -q "^error: patch 0002-stale.patch does not apply" "$tmp/bad.out"
t quilt-bad-patch-leaves-earlier grep -qx 'line 2' "$tmp/bad/hello.txt"

# An empty series is fine.
mkdir -p "$tmp/empty-series" && : >"$tmp/empty-series/series"
cp -r "$fx/tree" "$tmp/empty"
t quilt-empty-series "$top/scripts/apply-patches.sh" "$tmp/empty" "$tmp/empty-series"

# Kconfig fragment verification.
t config-check-ok "$top/scripts/check-config.sh" "$fx/dotconfig-ok" "$fx/wanted.config"
"$top/scripts/check-config.sh" "$fx/dotconfig-bad" "$fx/wanted.config" >"$tmp/cfg.out" 2>&1
t config-check-fails test $? -eq 1
t config-check-names-dropped grep -q "CONFIG_A: fragment wants 'CONFIG_A=y', .config has '<absent>'" "$tmp/cfg.out"
t config-check-names-unset grep -q "CONFIG_B: fragment wants '# CONFIG_B is not set', .config has 'CONFIG_B=y'" "$tmp/cfg.out"
t config-check-names-value grep -q "CONFIG_C: fragment wants 'CONFIG_C=\"text\"'" "$tmp/cfg.out"

# The pinned linux-source .deb (scripts/kernel-source.sh), with apt faked:
# a cached .deb of the pinned version is used without apt; one the archive
# no longer has fails with one line naming the package and the version; a
# download that works prints the .deb's path.
mkdir -p "$tmp/ks/bin" "$tmp/ks/pkg/DEBIAN" "$tmp/ks/cache/kernel-source"
cat >"$tmp/ks/pkg/DEBIAN/control" <<'CTL'
Package: linux-source-9.9
Version: 9.9.1-1
Architecture: all
Maintainer: rvkvm developers <dev@rvkvm.invalid>
Description: test fixture
CTL
dpkg-deb -b "$tmp/ks/pkg" "$tmp/ks/cache/kernel-source/linux-source-9.9_9.9.1-1_all.deb" >/dev/null
cat >"$tmp/ks/bin/apt-get" <<'APT'
#!/bin/sh
# Fake apt-get: logs its calls; "download" copies the fixture .deb for
# version 9.9.1-1 and fails for any other.
echo "$*" >>"$KS_LOG"
for a; do last=$a; done
case "$last" in
update) exit 0 ;;
linux-source-9.9=9.9.1-1) cp "$KS_DEB" linux-source-9.9_9.9.1-1_all.deb ;;
*) echo "E: Version '${last#*=}' for '${last%%=*}' was not found" >&2; exit 100 ;;
esac
APT
chmod +x "$tmp/ks/bin/apt-get"
cp "$tmp/ks/cache/kernel-source/linux-source-9.9_9.9.1-1_all.deb" "$tmp/ks/fixture.deb"
ks() {
	echo "$1" >"$tmp/ks/list"
	PATH=$tmp/ks/bin:$PATH RVKVM_CACHE=$tmp/ks/cache KS_LOG=$tmp/ks/apt.log \
		KS_DEB=$tmp/ks/fixture.deb "$top/scripts/kernel-source.sh" \
		--list "$tmp/ks/list" >"$tmp/ks/out" 2>"$tmp/ks/err"
}
ks "linux-source-9.9 9.9.1-1 test-backports"
t kernel-source-cached-used test "$(cat "$tmp/ks/out")" = "$tmp/ks/cache/kernel-source/linux-source-9.9_9.9.1-1_all.deb"
t kernel-source-cached-no-apt test ! -e "$tmp/ks/apt.log"
ks "linux-source-9.9 9.9.2-1 test-backports"
t kernel-source-gone-fails test $? -eq 1
t kernel-source-gone-one-line test "$(wc -l <"$tmp/ks/err")" -eq 1
t kernel-source-gone-named grep -q "^error: linux-source-9.9 9.9.2-1 is no longer in test-backports" "$tmp/ks/err"
rm "$tmp/ks/cache/kernel-source/linux-source-9.9_9.9.1-1_all.deb" "$tmp/ks/apt.log"
ks "linux-source-9.9 9.9.1-1 test-backports"
t kernel-source-download-ok test "$(cat "$tmp/ks/out")" = "$tmp/ks/cache/kernel-source/linux-source-9.9_9.9.1-1_all.deb"
t kernel-source-download-said grep -q "^kernel-source: downloaded linux-source-9.9 9.9.1-1" "$tmp/ks/err"
t kernel-source-apt-private grep -q "Dir::Etc::SourceList=$tmp/ks/cache/kernel-source/apt/sources.list" "$tmp/ks/apt.log"
