#!/usr/bin/env bash
# The library on the JVM, from the command line (issue 56):
#   ./run-jvm.sh translate [MODEL_DIR] < korean.txt    all lines as one text, one English line per line
#   ./run-jvm.sh reply [MODEL_DIR] < messages.txt      the chatbot's reply to each line (a stored reply where one
#                                                      is alike, as `studio chat` gives it)
#   ./run-jvm.sh generate [MODEL_DIR] < messages.txt   the model's reply to each line (`studio chat --reply generate`)
# MODEL_DIR: a model package folder (manifest.json, config.json, tokenizer/, the ONNX graphs); by default the
# model/ folder beside this script, else this script's own folder. Compare with `studio translate --backend onnx`.
# Needs Java 17+ and Maven; the first run builds the library (mvn package) and writes its classpath.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
usage="usage: ./run-jvm.sh translate|reply|generate [MODEL_DIR] < lines"
[[ $# -ge 1 && $# -le 2 && ( $1 == translate || $1 == reply || $1 == generate ) ]] || { echo "$usage" >&2; exit 2; }
if [[ $# -eq 2 ]]; then model="$2"
elif [[ -f "$here/model/manifest.json" ]]; then model="$here/model"
else model="$here"; fi

jar="$here/target/transformer-studio-android-0.1.0.jar"
classpath="$here/target/runtime-classpath.txt"
stale() { [[ ! -f $jar || ! -f $classpath ]] || [[ -n $(find "$here/src/main" "$here/pom.xml" -newer "$jar" -print -quit) ]]; }
if stale; then
  command -v mvn >/dev/null || { echo "run-jvm.sh: Maven (mvn) is needed to build the library once" >&2; exit 2; }
  echo "run-jvm.sh: building the library (mvn package)..." >&2
  # org.json is `provided` (Android has it): the compile scope's classpath includes it
  # no Kotlin compile daemon: it would outlive the build (over a gigabyte, idle for hours)
  # Maven's output is shown only when the build fails (a quiet build still prints terminal colour codes)
  log="$(mktemp)"
  if ! (cd "$here" && mvn -q -B -DskipTests -DskipLiteRt -Dkotlin.compiler.daemon=false package \
      org.apache.maven.plugins:maven-dependency-plugin:3.11.0:build-classpath \
      -Dmdep.outputFile="$classpath" -Dmdep.includeScope=compile) >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "run-jvm.sh: the library's build failed (Maven's output above)" >&2
    exit 2
  fi
  rm -f "$log"
fi
exec java -cp "$jar:$(cat "$classpath")" transformerstudio.cli.Main "$1" "$model"
