#!/usr/bin/env bash
# Builds and runs a README's example the way a new user would: a fresh Maven project made of the README's
# <!-- snippet:pom --> fragment and <!-- snippet:java --> class, against the Ferry artifacts in the local
# repository (./mvnw install first). Fails if it does not compile, does not print the line its
# <!-- snippet:expect REGEX --> marker names, or prints any warning (SLF4J's "no providers", the JVM's
# native-access or sun.misc.Unsafe ones). A <!-- snippet:jvm FLAGS --> marker gives the JVM flags the README
# tells users to add; <!-- snippet:jvm22 FLAGS --> those for JDK 22 and later.
#   .ci/readme-project.sh [README] [JAVA_HOME]      (README defaults to README.md)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
readme=README.md
if [ $# -gt 0 ] && [[ "$1" == *.md ]]; then
  readme=$1
  shift
fi
readme=$(cd "$root" && realpath "$readme")
java_home=${1:-${JAVA_HOME:-}}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

snippet() {  # $1: the marker; prints the fenced block that follows it
  python3 - "$readme" "$1" <<'PY'
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

marker() {  # $1: the marker's name; prints what follows it inside <!-- snippet:NAME ... -->, or nothing
  python3 - "$readme" "$1" <<'PY'
import re, sys
m = re.search(r"<!-- snippet:%s (.*?) -->" % re.escape(sys.argv[2]), open(sys.argv[1], encoding="utf-8").read())
print(m.group(1) if m else "")
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
snippet java > "$work/Main.java.txt"
class=$(sed -n 's/^public class \([A-Za-z0-9_]*\).*/\1/p' "$work/Main.java.txt" | head -1)
[ -n "$class" ] || { echo "readme-project: no public class in $readme's java snippet" >&2; exit 1; }
mv "$work/Main.java.txt" "$work/src/main/java/$class.java"
expect=$(marker expect)
[ -n "$expect" ] || expect='^received 100000 records; '

# built with the default JDK (for release 17); JAVA_HOME picks the JDK that runs it
"$root/mvnw" -q -B -f "$work/pom.xml" package dependency:build-classpath -Dmdep.outputFile="$work/cp.txt"
java=java
[ -n "$java_home" ] && java="$java_home/bin/java"
flags=()
read -r -a extra <<<"$(marker jvm)"
flags+=("${extra[@]}")
if [ "$("$java" -XshowSettings:properties -version 2>&1 | awk -F'= ' '/java.specification.version/{print $2}')" -ge 22 ]; then
  flags+=(--enable-native-access=ALL-UNNAMED)   # as the README says for JDK 22+
  read -r -a extra22 <<<"$(marker jvm22)"
  flags+=("${extra22[@]}")
fi
out=$(timeout 300 "$java" "${flags[@]}" -cp "$work/target/classes:$(cat "$work/cp.txt")" "$class" 2>&1)
echo "$out"
grep -Eq "$expect" <<<"$out" || { echo "readme-project: $readme's example did not print a line matching $expect" >&2; exit 1; }
if grep -qi 'warning\|SLF4J' <<<"$out"; then
  echo "readme-project: $readme's example printed a warning" >&2
  exit 1
fi
echo "readme-project: $readme's example builds and runs as written ($("$java" -version 2>&1 | head -1))"
