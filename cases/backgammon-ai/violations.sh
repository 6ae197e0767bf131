#!/bin/sh
# Prints the violations of one coding rule ($RULE: javadoc, private, line-length or tab) that
# style.sh found, one per line: a style case's output, compared with an empty transcript.
#
# usage: RULE=javadoc violations.sh FINDINGS
grep -F ": $RULE: " "$1" || true
