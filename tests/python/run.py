"""Runs the given test modules (tests/python/test_*.py) with unittest and prints one line a
test, `ok NAME` or `FAIL NAME: reason` (skips: `skip NAME: reason`), for the test runner's
sections to count."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


class Lines(unittest.TextTestResult):
    def addSuccess(self, test):
        super().addSuccess(test)
        print(f"ok {test.id()}", flush=True)

    def _bad(self, test, err):
        last = self._exc_info_to_string(err, test).strip().splitlines()[-1]
        print(f"FAIL {test.id()}: {last}", flush=True)
        print(self._exc_info_to_string(err, test), file=sys.stderr)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._bad(test, err)

    def addError(self, test, err):
        super().addError(test, err)
        self._bad(test, err)

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        print(f"skip {test.id()}: {reason}", flush=True)


def main(names):
    suite = unittest.defaultTestLoader.loadTestsFromNames(names)
    result = unittest.TextTestRunner(stream=open(os.devnull, "w"), resultclass=Lines).run(suite)
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
