#!/usr/bin/env bash
# Measures a main command on a fresh Debian bookworm: debootstrap --variant=minbase
# into a scratch folder, copy the repository in (its committed HEAD, plus this
# working tree's scripts/), run the command there with chroot, and print apt's
# download ("Need to get") and disk ("After this operation") figures, the wall
# time and the CPU time. Run as root; needs debootstrap (apt-get install
# debootstrap) and network access to Debian's archive (and PyPI for `full`).
#
#   bash scripts/fresh_machine.sh demo [DIR]    # bash scripts/demo.sh (setup profile runtime)
#   bash scripts/fresh_machine.sh test [DIR]    # bash scripts/test.sh (setup profile full)
#
# DIR (default /tmp/softalign-fresh) is removed first and kept afterwards; its
# log is DIR.log. The README's figures for both commands come from this.
set -euo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  demo) command="bash scripts/demo.sh" ;;
  test) command="bash scripts/test.sh" ;;
  *) echo "usage: $0 demo|test [DIR]" >&2; exit 2 ;;
esac
root="${2:-/tmp/softalign-fresh}"
mirror=http://deb.debian.org/debian
if mountpoint -q "$root/proc" 2>/dev/null; then umount "$root/proc"; fi
rm -rf "$root"
debootstrap --variant=minbase bookworm "$root" "$mirror" > "$root.debootstrap.log" 2>&1
cat > "$root/etc/apt/sources.list" <<EOS
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOS
cp /etc/resolv.conf "$root/etc/resolv.conf"
# pip in the chroot trusts what the host trusts (a proxy's CA, if any).
cp /etc/ssl/certs/ca-certificates.crt "$root/host-ca-certificates.crt" 2>/dev/null || true
mkdir -p "$root/softalign"
git archive HEAD | tar -x -C "$root/softalign"
cp scripts/*.sh "$root/softalign/scripts/"
mount -t proc proc "$root/proc"
trap 'umount "$root/proc"' EXIT
pip_cert=""
[ -f "$root/host-ca-certificates.crt" ] && pip_cert="PIP_CERT=/host-ca-certificates.crt"
TIMEFORMAT="wall %R s, CPU %U s user + %S s system"
status=0
{ time chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root $pip_cert \
    /bin/bash -c "cd /softalign && $command" > "$root.log" 2>&1; } 2> "$root.time" || status=$?
echo "fresh bookworm: $command (exit status $status; log $root.log)"
grep -E "^Need to get|^After this operation|newly installed" "$root.log" || true
cat "$root.time"
exit "$status"
