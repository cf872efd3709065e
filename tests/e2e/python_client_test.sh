#!/usr/bin/env bash
# Runs python_client_test.py (Debian's python3-kubernetes) against a fresh `tidepool up`.
source "$(dirname "$0")/lib.sh"
start_up --speed 60 --seed 11
/usr/bin/python3 "$SRC/tests/e2e/python_client_test.py" "$KUBECONFIG"
