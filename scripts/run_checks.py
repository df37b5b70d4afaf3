"""The verdict of a run script (attack.sh, soak.sh): prints every check
and exits 0 when all of them held, 1 otherwise."""
import sys


def conclude(checks):
    print("\nchecks")
    ok = True
    for name, passed, detail in checks:
        ok &= passed
        print(f'  {"ok  " if passed else "FAIL"} {name}: {detail}')
    print("\nresult:", "PASS" if ok else "FAIL")
    sys.exit(0 if ok else 1)
