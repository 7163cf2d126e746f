#!/usr/bin/env bash
# Installs the Debian packages footstepd builds and tests with (.ci/apt-packages.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends $(cat .ci/apt-packages.txt)
# The evaluation's scorer tests (make test) and tools/eval need numpy and scipy; the MQTT payload tests
# validate against docs/mqtt/*.schema.json with jsonschema; the dashboard's browser test drives Debian's
# chromium through chromium-driver with Selenium.
python3 -c "import numpy, scipy, jsonschema, selenium" 2>/dev/null || python3 -m pip install --quiet numpy scipy jsonschema selenium
