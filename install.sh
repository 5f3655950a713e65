#!/bin/sh
# Install betplan from a release: download the archive for this machine and
# the release's checksums.txt, check the archive's SHA-256 against it, then
# unpack and install the binary. Linux and macOS, amd64 and arm64.
#
#   BETPLAN_VERSION       the release, 1.2.3 or v1.2.3 (default: the latest;
#                         required with BETPLAN_DOWNLOAD_URL)
#   BETPLAN_DOWNLOAD_URL  the directory holding that release's archives and
#                         checksums.txt (default: the GitHub release's,
#                         https://github.com/betplan/betplan/releases/download/v<version>)
#   BETPLAN_INSTALL_DIR   where betplan goes (default: ~/.local/bin)
#
# A checksum fetched from the same server as the archive proves the download
# is whole, not who made it.
#
# Only a regular file named betplan is taken from the archive, and it replaces
# the installed betplan only once it runs here and says it is the version
# asked for. On any error: one line on stderr, a non-zero exit, and nothing
# installed or left behind.
set -eu

repo=betplan/betplan
tmp=
staged=

fail() {
	echo "install.sh: $*" >&2
	exit 1
}

cleanup() {
	if [ -n "$staged" ]; then rm -f "$staged"; fi
	if [ -n "$tmp" ]; then rm -rf "$tmp"; fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# platform prints this machine's <os>_<arch> as the archives name it.
platform() {
	os=$(uname -s)
	arch=$(uname -m)
	case $os in
	Linux) os=linux ;;
	Darwin) os=darwin ;;
	*) fail "unsupported operating system $os: releases are for Linux and macOS (on Windows, download the .zip from the release)" ;;
	esac
	case $arch in
	x86_64 | amd64) arch=amd64 ;;
	aarch64 | arm64) arch=arm64 ;;
	*) fail "unsupported architecture $arch: releases are for amd64 (x86_64) and arm64 (aarch64)" ;;
	esac
	echo "${os}_${arch}"
}

# checkURL refuses a URL that is not https://, except http:// on this
# machine (localhost, 127.0.0.0/8, [::1]), the rule betplan keeps for its
# own connections.
checkURL() {
	case $1 in
	https://*) return 0 ;;
	http://*) ;;
	*) fail "download URL $1 must start with https:// (http:// only on loopback)" ;;
	esac
	authority=${1#http://}
	authority=${authority%%/*}
	authority=${authority%%\?*}
	authority=${authority%%#*}
	host=${authority##*@}
	case $host in
	\[*\]*) host=${host%%]*}] ;;
	*) host=${host%%:*} ;;
	esac
	case $host in
	localhost | *.localhost | \[::1\]) return 0 ;;
	*[!0-9.]*) ;;
	127.*) return 0 ;;
	esac
	fail "refusing plain http:// to $host: use https:// (http:// only on loopback)"
}

# maxRedirects bounds the redirects one download follows.
maxRedirects=10

# fetch URL FILE downloads URL to FILE; an HTTP error is a failure. curl or
# wget makes one request at a time and follows no redirect itself: fetch
# follows them, by one rule whichever tool there is: from https:// to
# https:// only (to another host too: GitHub's release downloads move to
# its own), and none from plain http:// (loopback only). wget could not
# keep that rule itself: its --https-only holds for recursion, not for
# redirects.
fetch() {
	if command -v curl >/dev/null 2>&1; then
		get=curlGet
	elif command -v wget >/dev/null 2>&1; then
		# BusyBox's wget has none of the options wgetGet needs.
		case $(wget --version 2>/dev/null) in
		"GNU Wget 1."*) ;;
		*) fail "the wget here is not GNU Wget, whose options install.sh needs: install curl or GNU Wget" ;;
		esac
		get=wgetGet
	else
		fail "neither curl nor wget is installed: install one of them"
	fi
	from=$1
	hops=0
	while :; do
		to=$($get "$from" "$2") || return 1
		[ -n "$to" ] || return 0
		case $from in
		http://*) fail "refusing the redirect from $from to $(shown "$to"): a plain http:// download follows no redirect" ;;
		esac
		case $to in
		https://*) ;;
		*) fail "refusing the redirect from $from to $(shown "$to"): redirects are followed to https:// only" ;;
		esac
		hops=$((hops + 1))
		[ "$hops" -le "$maxRedirects" ] || fail "cannot download $1: more than $maxRedirects redirects"
		from=$to
	done
}

# curlGet URL FILE asks for URL once, into FILE: it succeeds quietly on a
# 2xx answer, prints the absolute URL a redirect points to, and fails on
# anything else. The bounds are wgetGet's: 30 s to connect (the name
# lookup included), 60 s without a byte, no retry.
curlGet() {
	case $1 in
	https://*) proto='=https' ;;
	*) proto='=http' ;;
	esac
	answer=$(curl -fs --proto "$proto" --connect-timeout 30 --speed-limit 1 --speed-time 60 \
		-w '%{http_code} %{redirect_url}' -o "$2" "$1") || return 1
	case $answer in
	2??\ ) ;;
	3??\ ?*) printf '%s\n' "${answer#* }" ;;
	*) return 1 ;;
	esac
}

# wgetGet is curlGet with wget. To wget a redirect it may not follow is an
# error; -S prints the answer's status line and headers.
wgetGet() {
	if wget -q -S --max-redirect=0 --tries=1 --dns-timeout=30 --connect-timeout=30 --read-timeout=60 \
		-O "$2" "$1" 2>"$tmp/headers"; then
		return 0
	fi
	to=$(awk '
		{ sub(/\r$/, "") }
		/^[ \t]*HTTP\// { code = $2; to = "" }
		tolower($1) == "location:" { to = $0; sub(/^[ \t]*[^:]*:[ \t]*/, "", to) }
		END { if (code ~ /^3/ && to != "") print to }' "$tmp/headers")
	[ -n "$to" ] || return 1
	absolute "$1" "$to"
}

# absolute prints the redirect target $2, as given by the answer from URL $1,
# as an absolute URL, as curl does.
absolute() {
	scheme=${2%%:*}
	case $scheme in
	"$2" | "" | *[!a-zA-Z0-9+.-]*) ;;
	*)
		# curl gives the scheme in lower case.
		printf '%s:%s\n' "$(printf '%s\n' "$scheme" | awk '{ print tolower($0) }')" "${2#*:}"
		return
		;;
	esac
	rest=${1#*://}
	case $2 in
	//*) printf '%s:%s\n' "${1%%://*}" "$2" ;;
	/*) printf '%s://%s%s\n' "${1%%://*}" "${rest%%/*}" "$2" ;;
	\?*) printf '%s%s\n' "${1%%\?*}" "$2" ;;
	*)
		base=${1%%[?#]*}
		case ${base#*://} in
		*/*) printf '%s/%s\n' "${base%/*}" "$2" ;;
		*) printf '%s/%s\n' "$base" "$2" ;;
		esac
		;;
	esac
}

sha256() {
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum "$1" | cut -d ' ' -f 1
	elif command -v shasum >/dev/null 2>&1; then
		shasum -a 256 "$1" | cut -d ' ' -f 1
	else
		fail "neither sha256sum nor shasum is installed: the download cannot be verified"
	fi
}

# entryKind names the entry type tar's long listing starts with.
entryKind() {
	case $1 in
	l) echo "a symbolic link" ;;
	h) echo "a hard link" ;;
	d) echo "a directory" ;;
	c) echo "a character device" ;;
	b) echo "a block device" ;;
	p) echo "a named pipe" ;;
	s) echo "a socket" ;;
	*) echo "an entry of type '$(shown "$1")'" ;;
	esac
}

# fileKind names what the file at $1 is, when it is not a regular file.
fileKind() {
	if [ -h "$1" ]; then echo "a symbolic link"
	elif [ -d "$1" ]; then echo "a directory"
	elif [ -c "$1" ]; then echo "a character device"
	elif [ -b "$1" ]; then echo "a block device"
	elif [ -p "$1" ]; then echo "a named pipe"
	elif [ -S "$1" ]; then echo "a socket"
	else echo "not a file"
	fi
}

# shown is a line from elsewhere made fit for a message: its first line, no
# control characters, at most 200 bytes.
shown() {
	printf '%s\n' "$1" | head -n 1 | LC_ALL=C sed 's/[[:cntrl:]]//g' | cut -c 1-200
}

# latestVersion asks GitHub which release is the latest.
latestVersion() {
	fetch "https://api.github.com/repos/$repo/releases/latest" "$tmp/latest.json" ||
		fail "cannot ask GitHub for the latest release: set BETPLAN_VERSION"
	v=$(sed -n 's/.*"tag_name": *"v\{0,1\}\([^"]*\)".*/\1/p' "$tmp/latest.json" | head -n 1)
	[ -n "$v" ] || fail "GitHub did not say which release is the latest: set BETPLAN_VERSION"
	echo "$v"
}

main() {
	target=$(platform)
	version=${BETPLAN_VERSION:-}
	version=${version#v}
	url=${BETPLAN_DOWNLOAD_URL:-}
	url=${url%/}
	dir=${BETPLAN_INSTALL_DIR:-}
	if [ -z "$dir" ]; then
		[ -n "${HOME:-}" ] || fail "HOME is not set: set BETPLAN_INSTALL_DIR"
		dir=$HOME/.local/bin
	fi
	if [ -n "$url" ]; then
		[ -n "$version" ] || fail "BETPLAN_DOWNLOAD_URL needs BETPLAN_VERSION: which release is in $url?"
		checkURL "$url"
	fi
	case $version in
	*/* | *[[:space:]]*) fail "BETPLAN_VERSION $version is not a version" ;;
	esac

	tmp=$(mktemp -d "${TMPDIR:-/tmp}/betplan-install.XXXXXX") || fail "cannot make a temporary directory"
	if [ -z "$version" ]; then
		version=$(latestVersion)
	fi
	if [ -z "$url" ]; then
		url=https://github.com/$repo/releases/download/v$version
	fi

	archive=betplan_${version}_${target}.tar.gz
	fetch "$url/checksums.txt" "$tmp/checksums.txt" ||
		fail "cannot download $url/checksums.txt: is betplan $version released there?"
	want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1; exit }' "$tmp/checksums.txt")
	[ -n "$want" ] || fail "$url/checksums.txt lists no $archive: betplan $version has no archive for $target"
	fetch "$url/$archive" "$tmp/$archive" || fail "cannot download $url/$archive"
	got=$(sha256 "$tmp/$archive")
	[ "$got" = "$want" ] || fail "checksum mismatch for $archive: checksums.txt says $want, the download is $got; nothing installed"

	# Only a regular file named betplan is taken: a symbolic or hard link
	# would bring in a file of this machine (a secret, made executable), a
	# device or a pipe is not a program. tar's long listing starts with the
	# entry's type, as GNU tar and bsdtar both print it; an archive may hold
	# the name more than once, and every one must be a file.
	kinds=$(tar -tvzf "$tmp/$archive" betplan 2>/dev/null | cut -c 1)
	[ -n "$kinds" ] || fail "$archive holds no betplan binary"
	kind=$(printf '%s\n' "$kinds" | awk '$0 != "-" { print; exit }')
	[ -z "$kind" ] || fail "the betplan in $archive is $(entryKind "$kind"), not a regular file: nothing installed"
	mkdir "$tmp/unpacked"
	tar -xzf "$tmp/$archive" -C "$tmp/unpacked" betplan 2>/dev/null || fail "$archive holds no betplan binary"
	unpacked=$tmp/unpacked/betplan
	if [ -h "$unpacked" ] || [ ! -f "$unpacked" ]; then
		fail "the betplan in $archive is $(fileKind "$unpacked"), not a regular file: nothing installed"
	fi

	mkdir -p "$dir" || fail "cannot create $dir"
	# Copy beside the target, check it runs and is the version asked for,
	# then rename: the betplan there is replaced only by one that works, and
	# a running betplan, or one interrupted here, never sees half a binary.
	staged=$(mktemp "$dir/.betplan.install.XXXXXX") || fail "cannot write to $dir"
	cp "$unpacked" "$staged" || fail "cannot write to $dir"
	chmod 755 "$staged"
	# Its stderr and the shell's own word on a crash ("Segmentation fault")
	# stay off the terminal: "|| exit" keeps the subshell that says it, and
	# exits with the binary's status.
	if line=$(exec 2>/dev/null; "$staged" version </dev/null || exit); then
		line=$(printf '%s\n' "$line" | head -n 1)
	else
		fail "the betplan in $archive does not run on this machine ('betplan version' exits with $?): nothing installed"
	fi
	case $line in
	"betplan v$version ("*) ;;
	*) fail "the betplan in $archive is not betplan v$version ('betplan version' says \"$(shown "$line")\"): nothing installed" ;;
	esac
	mv -f "$staged" "$dir/betplan" || fail "cannot install $dir/betplan"
	staged=
	echo "installed $dir/betplan: $(shown "$line")"
	case :${PATH:-}: in
	*:"$dir":*) ;;
	*) echo "$dir is not on your PATH: add it, or run $dir/betplan" ;;
	esac
}

main "$@"
