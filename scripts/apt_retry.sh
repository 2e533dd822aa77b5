# Sourced by the scripts that call apt (setup.sh, cross_sysroot.sh, cross_jre.sh).
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
