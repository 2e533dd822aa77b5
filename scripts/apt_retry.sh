# Sourced by the scripts that call apt (setup.sh, cross_sysroot.sh, cross_jre.sh, cross_python.sh).
# Debian's mirrors are sometimes caught mid-sync ("File has unexpected size ...
# Mirror sync in progress?"): apt-get update then exits 100 although nothing is
# wrong here. Each call is tried up to 4 times, 20, 40 and 60 s apart, before
# the script fails; "apt_retry: try N failed" says when that happened.
apt_retry() {
  local try
  for try in 1 2 3 4; do
    "$@" && return 0
    [ "$try" -eq 4 ] && break
    echo "apt_retry: try $try of '$*' failed; again in $((20 * try)) s" >&2
    sleep $((20 * try))
  done
  echo "apt_retry: '$*' failed 4 times" >&2
  return 1
}

# unpack_debs ROOT DEB_ARCH PKG... [-- ALL_PKG...]: Debian packages of a foreign
# architecture (PKG:DEB_ARCH; ALL_PKG: Architecture: all) downloaded once into
# ROOT/.debs (apt-get download, one call for the list: each call reads apt's
# whole cache) and unpacked into ROOT (dpkg-deb -x). Idempotent: ROOT/.debs/PKG.done.
unpack_debs() {
  local root=$1 deb_arch=$2 debs="$1/.debs" p deb all=0
  shift 2
  local pkgs=() names=() want=()
  for p in "$@"; do
    if [ "$p" = -- ]; then all=1; continue; fi
    names+=("$p")
    [ $all -eq 1 ] && pkgs+=("$p") || pkgs+=("$p:$deb_arch")
  done
  mkdir -p "$debs"
  chmod 777 "$debs"  # apt downloads as _apt when it can
  for p in "${!names[@]}"; do [ -e "$debs/${names[$p]}.done" ] || want+=("${pkgs[$p]}"); done
  if [ ${#want[@]} -gt 0 ]; then
    (cd "$debs" && apt_retry apt-get download -qq "${want[@]}") || return 1
  fi
  for p in "${names[@]}"; do
    [ -e "$debs/$p.done" ] && continue
    deb=$(ls "$debs/${p}"_*.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || { echo "unpack_debs: could not download $p for $deb_arch" >&2; return 1; }
    dpkg-deb -x "$deb" "$root"
    touch "$debs/$p.done"
  done
}
