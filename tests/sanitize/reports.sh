#!/usr/bin/env bash
# The sanitizer build's reports (tests/sanitize/sanitize.cmake):
#   reports.sh clear DIR    before the tests: an empty DIR for them
#   reports.sh check DIR    after them: print every report and fail if there is one
set -euo pipefail
what=$1 dir=$2
case $what in
clear)
	rm -rf "$dir"
	mkdir -p "$dir"
	;;
check)
	shopt -s nullglob
	reports=("$dir"/*)
	if [ ${#reports[@]} -eq 0 ]; then
		echo "sanitizer reports: none"
		exit 0
	fi
	for r in "${reports[@]}"; do
		# the file is TEST.PROGRAM.PID
		echo "==== ${r##*/}"
		cat "$r"
	done
	echo "sanitizer reports: ${#reports[@]} (files in $dir, named TEST.PROGRAM.PID)" >&2
	exit 1
	;;
*)
	echo "usage: reports.sh clear|check DIR" >&2
	exit 2
	;;
esac
