"""`python -m gradlint`. SIGTERM and Ctrl-C end a run with one line from the start: importing the
command line takes a while."""

from gradlint.interrupts import exit_interrupted, handle_termination

handle_termination()
try:
    from gradlint.cli import main
except KeyboardInterrupt as interrupt:
    exit_interrupted(interrupt)

main()
