#!/bin/sh
# Builds a backgammon-ai submission into one executable jar: its .java files (anywhere in its tree)
# compiled and packed with the class that has `main` as the entry point, or, when it holds no .java
# file, the one .jar it handed in, as it is. Runs in the sandbox as a compiler.
#
# usage: build-java.sh BUILD_DIR OUT_JAR [MAIN_CLASS]
set -eu
build=$1
out=$2
main_class=${3:-}
cd "$build"

# The JVMs of javac and jar reserve their heap up front: keep it small enough for the build's memory.
jvm_flags="-J-Xmx512m -J-XX:+UseSerialGC -J-XX:TieredStopAtLevel=1"

find . -name '*.java' -type f | sort > sources.list
if [ -s sources.list ]; then
    if [ -z "$main_class" ]; then
        # The classes with a main method: `package a.b;` plus the file's name.
        : > mains.list
        while IFS= read -r file; do
            if grep -Eq 'static[[:space:]]+(final[[:space:]]+)?void[[:space:]]+main[[:space:]]*\(' "$file"; then
                package=$(sed -n 's/^[[:space:]]*package[[:space:]]*\([A-Za-z0-9_.]*\)[[:space:]]*;.*/\1/p' "$file" | head -n 1)
                class=$(basename "$file" .java)
                echo "${package:+$package.}$class" >> mains.list
            fi
        done < sources.list
        count=$(wc -l < mains.list)
        if [ "$count" -eq 0 ]; then
            echo "no class with a main method among the .java files" >&2
            exit 1
        elif [ "$count" -eq 1 ]; then
            main_class=$(cat mains.list)
        else
            # Several: the one named Main, if exactly one is.
            main_class=$(grep -E '(^|\.)Main$' mains.list || true)
            if [ "$(printf '%s' "$main_class" | grep -c .)" -ne 1 ]; then
                echo "several classes have a main method, and not exactly one is called Main:" >&2
                sed 's/^/  /' mains.list >&2
                exit 1
            fi
        fi
    fi
    # An argument file keeps names with spaces whole.
    sed 's/.*/"&"/' sources.list > sources.args
    # shellcheck disable=SC2086 # the flags are words
    javac $jvm_flags -encoding UTF-8 -nowarn -Xlint:none -d classes @sources.args
    # shellcheck disable=SC2086
    jar $jvm_flags --create --file "$out" --main-class "$main_class" -C classes .
    echo "main class: $main_class"
    exit 0
fi

find . -name '*.jar' -type f | sort > jars.list
case $(wc -l < jars.list) in
    0) echo "the submission holds no .java file and no .jar" >&2; exit 1 ;;
    1) cp "$(cat jars.list)" "$out" ;;
    *) echo "the submission holds no .java file and several .jar files:" >&2; sed 's/^/  /' jars.list >&2; exit 1 ;;
esac
mkdir manifest
# shellcheck disable=SC2086
(cd manifest && jar $jvm_flags --extract --file "$out" META-INF/MANIFEST.MF) 2>/dev/null || true
if ! grep -qi '^Main-Class:' manifest/META-INF/MANIFEST.MF 2>/dev/null; then
    echo "the submitted jar names no Main-Class in its manifest (it is not executable)" >&2
    exit 1
fi
echo "the submitted jar, as it is"
