#!/usr/bin/env bash
# Builds the plotly.js bundles of deploy/plotly-bundles.txt into static/vendor/, from the npm registry's plotly.js and
# esbuild at the versions below, with the options plotly.js's own build gives esbuild (its esbuild-config.js). The
# built files are committed: set-up needs no Node.js. Run `make plotly` after changing a version or a bundle's
# traces, and commit static/vendor/.
set -euo pipefail

PLOTLY_VERSION=4.1.1
ESBUILD_VERSION=0.28.2
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT

cd "$build"
npm init -y > /dev/null
npm install --no-audit --no-fund --silent "plotly.js@$PLOTLY_VERSION" "esbuild@$ESBUILD_VERSION"

grep -v '^#' "$here/deploy/plotly-bundles.txt" | while IFS=: read -r name traces; do
  traces=$(echo $traces)  # the spaces around them dropped
  {
    echo "var Plotly = require('plotly.js/lib/core');"
    echo "Plotly.register(["
    for trace in $traces; do echo "  require('plotly.js/lib/$trace'),"; done
    echo "]);"
    echo "module.exports = Plotly;"
  } > "entry-$name.js"
  npx esbuild "entry-$name.js" --bundle --minify --format=iife --global-name=Plotly --target=es2016 \
    --define:global=window --define:define.amd=false --loader:.css=empty --log-level=warning \
    --banner:js="/* plotly.js v$PLOTLY_VERSION (MIT), traces: scatter $traces; deploy/plotly-bundles.sh */" \
    --outfile="$here/static/vendor/plotly-$name.min.js"
done
cp node_modules/plotly.js/dist/plotly-locale-ja.js "$here/static/vendor/plotly-locale-ja.js"
ls -l "$here"/static/vendor/plotly-*.min.js
