#!/bin/sh
# Checks a backgammon-ai submission's .java files against the handout's coding requirements with
# Checkstyle (the configuration CONFIG) and writes one line per violation to OUT, sorted:
# `path/File.java:LINE: RULE: what`, RULE one of javadoc, private, line-length, tab. A submission
# without a .java file (a jar alone) has nothing the rules can be checked on: one line per rule says
# so. Runs in the sandbox as a compiler; Checkstyle's own exit status is its count of violations.
#
# usage: style.sh BUILD_DIR OUT CONFIG VIOLATIONS_SH (the sandbox shows a build only the files its
# command names)
set -eu
build=$1
out=$2
config=$3
cd "$build"
# What each style case runs, kept with the findings in the build folder (which runs can see).
cp "$4" violations.sh
find . -name '*.java' -type f | sort > style-sources.list
if [ ! -s style-sources.list ]; then
    for rule in javadoc private line-length tab; do
        echo "(no .java file): $rule: the sources are needed to check it"
    done > "$out"
    exit 0
fi
# The file names as arguments, each whole: a student's name with spaces or `*` stays one file.
set --
while IFS= read -r file; do
    set -- "$@" "$file"
done < style-sources.list
# Checkstyle's JVM (through java-wrappers): a heap the build's memory holds.
JAVA_ARGS="-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1" checkstyle -c "$config" "$@" \
    > style-raw.txt 2>&1 || true
if ! grep -q '^Audit done' style-raw.txt; then
    echo "Checkstyle did not finish:" >&2
    cat style-raw.txt >&2
    exit 1
fi
# [ERROR] /the/build/./path/File.java:LINE[:COLUMN]: message [Check], the file named as it was given.
sed -e 's|^\[ERROR\] .*/\./|[ERROR] ./|' style-raw.txt |
    sed -n 's/^\[ERROR\] \.\/\([^:]*\):\([0-9][0-9]*\)\(:[0-9][0-9]*\)\{0,1\}: \(.*\) \[\([A-Za-z]*\)\]$/\1:\2: \5: \4/p' |
    sed -e 's/: JavadocPackage: /: javadoc: /' -e 's/: MissingJavadocType: /: javadoc: /' \
        -e 's/: MissingJavadocMethod: /: javadoc: /' -e 's/: VisibilityModifier: /: private: /' \
        -e 's/: LineLength: /: line-length: /' -e 's/: FileTabCharacter: /: tab: /' |
    sort -t: -k1,1 -k2,2n > "$out"
