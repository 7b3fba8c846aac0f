#!/usr/bin/env bash
# Builds and runs README.md's library example the way a new user would: a fresh Maven project made of the
# README's <!-- snippet:pom --> fragment and <!-- snippet:java --> class, against the Ferry artifacts in the
# local repository (./mvnw install first). Fails if it does not compile, does not print its result line,
# or prints any warning (SLF4J's "no providers", the JVM's native-access one).
#   .ci/readme-project.sh [JAVA_HOME]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
java_home=${1:-${JAVA_HOME:-}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

snippet() {  # $1: the marker; prints the fenced block that follows it
  python3 - "$root/README.md" "$1" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
marker = "<!-- snippet:%s -->" % sys.argv[2]
i = lines.index(marker) + 1
while not lines[i].startswith("```"):
    i += 1
j = i + 1
while not lines[j].startswith("```"):
    j += 1
print("\n".join(lines[i + 1:j]))
PY
}

mkdir -p "$work/src/main/java"
{
  cat <<'POM'
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>ferry-readme</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
POM
  snippet pom
  echo '</project>'
} > "$work/pom.xml"
snippet java > "$work/src/main/java/Quickstart.java"

# built with the default JDK (for release 17); JAVA_HOME picks the JDK that runs it
"$root/mvnw" -q -B -f "$work/pom.xml" package dependency:build-classpath -Dmdep.outputFile="$work/cp.txt"
java=java
[ -n "$java_home" ] && java="$java_home/bin/java"
flags=()
if [ "$("$java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/{print $2}')" -ge 22 ]; then
  flags+=(--enable-native-access=ALL-UNNAMED)   # as the README says for JDK 22+
fi
out=$("$java" "${flags[@]}" -cp "$work/target/classes:$(cat "$work/cp.txt")" Quickstart 2>&1)
echo "$out"
grep -q '^received 100000 records; ' <<<"$out" || { echo "readme-project: the example did not print its result" >&2; exit 1; }
if grep -qi 'warning\|SLF4J' <<<"$out"; then
  echo "readme-project: the example printed a warning" >&2
  exit 1
fi
echo "readme-project: README.md's example builds and runs as written ($("$java" -version 2>&1 | head -1))"
