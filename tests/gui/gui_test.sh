# Sourced first by every window test script, whose first argument is the window to run
# (attnlab-harness): `set -eu`, $app, a fresh $work holding the window's HOME, config, state and
# pictures (isolated_home.sh), and the window driver (window_driver.sh: start, press, click,
# capture, ..., each waiting for the state the next step needs).
set -eu
app=$1
. "$(dirname "$0")/isolated_home.sh"
. "$(dirname "$0")/window_driver.sh"
