#!/usr/bin/env bash
# Measures the README's main commands on a fresh Debian bookworm: debootstrap
# --variant=minbase into a scratch folder, copy the repository in (its
# committed HEAD, plus this working tree's scripts/), run the commands there
# one after the other with chroot, and print for each apt's download ("Need to
# get") and disk ("After this operation") figures, the wall time and the CPU
# time. Run as root; needs debootstrap (apt-get install debootstrap) and
# network access to Debian's archive (and PyPI for `test`).
#
#   bash scripts/fresh_machine.sh demo [DIR]        # bash scripts/demo.sh (setup profile runtime)
#   bash scripts/fresh_machine.sh test [DIR]        # bash scripts/test.sh (setup profile full)
#   bash scripts/fresh_machine.sh demo,test [DIR]   # a newcomer's order: demo.sh, then test.sh
#   bash scripts/fresh_machine.sh test,demo [DIR]   # the other order
#
# DIR (default /tmp/softalign-fresh) is removed first and kept afterwards; the
# log of step N is DIR.N.log. The README's figures for both commands come from
# this. Exit status: the first failing command's, else 0.
set -euo pipefail
cd "$(dirname "$0")/.."
commands=()
IFS=, read -r -a steps <<< "${1:-}"
for step in "${steps[@]}"; do
  case "$step" in
    demo) commands+=("bash scripts/demo.sh") ;;
    test) commands+=("bash scripts/test.sh") ;;
    *) echo "usage: $0 demo|test[,demo|test...] [DIR]" >&2; exit 2 ;;
  esac
done
[ ${#commands[@]} -gt 0 ] || { echo "usage: $0 demo|test[,demo|test...] [DIR]" >&2; exit 2; }
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
n=0
for command in "${commands[@]}"; do
  n=$((n + 1))
  rc=0
  { time chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root $pip_cert \
      /bin/bash -c "cd /softalign && $command" > "$root.$n.log" 2>&1; } 2> "$root.$n.time" || rc=$?
  echo "fresh bookworm, step $n: $command (exit status $rc; log $root.$n.log)"
  grep -E "^Need to get|^After this operation|newly installed" "$root.$n.log" || true
  grep -E "tests passed|tests failed" "$root.$n.log" || true
  cat "$root.$n.time"
  [ $status -ne 0 ] || status=$rc
done
exit "$status"
