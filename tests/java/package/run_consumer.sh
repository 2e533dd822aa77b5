#!/usr/bin/env bash
# The Java package's consumer test (tests/java/package/CMakeLists.txt): builds the consumer
# (consumer/pom.xml, depending on org.softalign:softalign) with Maven offline (-o) against the
# local repository build_jar.sh installed the jar into, then runs it with the installed jar on
# the classpath, so that the library is the one the jar carries (NativeLoader extracts it), and
# compares its translations of the first N sources of tests/models/en-fr.int8.expected.tsv with
# that file's beam-4 column.
#
#   run_consumer.sh POM REPO JAR SOURCE_ROOT N JAVA [WRAPPER...]
#     JAVA: the JVM; WRAPPER: what runs it (qemu-aarch64 -L SYSROOT for the arm64 JRE)
set -euo pipefail
[ $# -ge 6 ] || { echo "usage: $0 POM REPO JAR SOURCE_ROOT N JAVA [WRAPPER...]" >&2; exit 2; }
pom=$1 repo=$2 jar=$3 root=$4 n=$5 java=$6
shift 6
settings=$root/platforms/java/package/settings.xml
[ -f "$jar" ] || { echo "run_consumer: no jar at $jar: run platforms/java/package/build_jar.sh first" >&2; exit 1; }

# -o: nothing but the local repository (the install put the plugins there too).
mvn -o -B -q -Dstyle.color=never -s "$settings" -Dmaven.repo.local="$repo" -f "$pom" package
consumer=$(dirname "$pom")/target/softalign-consumer-1.0.jar

table=$(mktemp) sources=$(mktemp) expected=$(mktemp) got=$(mktemp)
trap 'rm -f "$table" "$sources" "$expected" "$got"' EXIT
grep -v '^#' "$root/tests/models/en-fr.int8.expected.tsv" | head -n "$n" >"$table"
cut -f1 "$table" >"$sources"
cut -f3 "$table" >"$expected"
"$@" "$java" -cp "$consumer:$jar" example.Translate "$root/models/en-fr/en-fr.int8.softalign" <"$sources" >"$got"
if diff -u "$expected" "$got"; then
  echo "run_consumer: $n of $n translations equal the expected beam-4 outputs"
else
  echo "run_consumer: the translations differ from the expected ones (above)" >&2
  exit 1
fi
