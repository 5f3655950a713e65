# Sourced by .ci/setup and .ci/postgres. quietly CMD... runs CMD with its
# output kept aside: a step that works says only the line its script
# printed before it; one that fails shows everything CMD said, and fails
# with its status.
quietly() {
  local log rc=0
  log=$(mktemp "${TMPDIR:-/tmp}/betplan-setup.XXXXXX")
  "$@" >"$log" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ]; then
    echo "$(basename "$0"): '$*' failed with status $rc; it said:" >&2
    cat "$log" >&2
  fi
  rm -f "$log"
  return "$rc"
}
