#!/usr/bin/env bash
# Regenerates the real toolchain outputs the tests of this package read: each *.log is what a
# command printed, stdout then a newline then stderr, as a verification log holds it after its
# header. Each project is run twice, in $FX/base and in $FX/change (the base commit's files and
# a task's worktree), so paths differ as they do between the two.
#
#   FX=/opt/rxfx bash core/failures/testdata/generate.sh   (go, python3 with pytest, node, cargo, make)
set -u
FX=${FX:-/opt/rxfx}
OUT=$(cd "$(dirname "$0")" && pwd)
PYTEST_PY=${PYTEST_PY:-/usr/bin/python3} # a python3 with pytest installed
rm -rf "$FX" && mkdir -p "$FX/base" "$FX/change"

# run NAME DIR ARGV...: runs ARGV in DIR and writes NAME.log
run() {
	local name=$1 dir=$2
	shift 2
	(cd "$dir" && PYTHONDONTWRITEBYTECODE=1 NO_COLOR=1 "$@" >"$FX/stdout" 2>"$FX/stderr")
	echo "$name: exit $?"
	{ cat "$FX/stdout"; echo; cat "$FX/stderr"; } >"$OUT/$name.log"
}

# --- go: a module whose TestVendorAPI (and the subtest TestSub/b) fail before any change.
gobase() {
	local d=$1
	mkdir -p "$d/sub"
	printf 'module example.com/m\n\ngo 1.22\n' >"$d/go.mod"
	printf 'package m\n\nfunc Add(a, b int) int { return a + b }\n' >"$d/m.go"
	cat >"$d/m_test.go" <<'EOF'
package m

import "testing"

func TestVendorAPI(t *testing.T) {
	t.Fatal("the vendor API is down")
}

func TestAdd(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("bad")
	}
}

func TestSub(t *testing.T) {
	t.Run("a", func(t *testing.T) {})
	t.Run("b", func(t *testing.T) { t.Error("sub b fails") })
}
EOF
	printf 'package sub\n\nfunc S() int { return 1 }\n' >"$d/sub/s.go"
	printf 'package sub\n\nimport "testing"\n\nfunc TestS(t *testing.T) {\n\tif S() != 1 {\n\t\tt.Fatal(S())\n\t}\n}\n' >"$d/sub/s_test.go"
}
gobase "$FX/base/go"
run go-base "$FX/base/go" go test -count=1 ./...
run go-json-base "$FX/base/go" go test -count=1 -json ./...
gobase "$FX/change/go"
# The same failures, two lines further down and with other timings.
sed -i 's/^import "testing"$/import "testing"\n\n\/\/ Two lines more.\n/' "$FX/change/go/m_test.go"
run go-same "$FX/change/go" go test -count=1 ./...
# The change breaks the build of the package whose test already failed.
cp "$FX/change/go/m.go" "$FX/m.go.orig"
echo 'func Broken() int { return undefinedSymbol }' >>"$FX/change/go/m.go"
run go-build "$FX/change/go" go test -count=1 ./...
run go-json-build "$FX/change/go" go test -count=1 -json ./...
cp "$FX/m.go.orig" "$FX/change/go/m.go"
# A new failing test next to the known one, and a new failing subtest of a failing test.
printf '\nfunc TestResult(t *testing.T) { t.Error("result is wrong") }\n' >>"$FX/change/go/m_test.go"
sed -i 's/t.Run("a", func(t \*testing.T) {})/t.Run("a", func(t *testing.T) { t.Error("sub a fails now") })/' "$FX/change/go/m_test.go"
run go-newtest "$FX/change/go" go test -count=1 ./...
# A test that panics, in the package that passed.
printf 'package sub\n\nimport "testing"\n\nfunc TestPanics(t *testing.T) {\n\tvar m map[string]int\n\tm["x"] = 1\n}\n' >"$FX/change/go/sub/p_test.go"
run go-panic "$FX/change/go" go test -count=1 ./sub/
# An import that no module provides.
printf 'package sub\n\nimport (\n\t"testing"\n\n\t"example.com/nope"\n)\n\nfunc TestX(t *testing.T) { nope.X() }\n' >"$FX/change/go/sub/p_test.go"
run go-setup "$FX/change/go" go test -count=1 ./sub/
rm "$FX/change/go/sub/p_test.go"
# go vet: a printf mistake on the base; on the change the same one, moved, and a new one.
mkdir -p "$FX/base/vet" "$FX/change/vet"
for d in "$FX/base/vet" "$FX/change/vet"; do
	printf 'module example.com/v\n\ngo 1.22\n' >"$d/go.mod"
	printf 'package v\n\nimport "fmt"\n\nfunc Hello() string { return fmt.Sprintf("%%d", "x") }\n' >"$d/v.go"
done
run go-vet-base "$FX/base/vet" go vet ./...
sed -i 's/^import "fmt"$/import "fmt"\n\n\/\/ Moved down./' "$FX/change/vet/v.go"
run go-vet-same "$FX/change/vet" go vet ./...
printf '\nfunc Bye() string { return fmt.Sprintf("%%s", 1) }\n' >>"$FX/change/vet/v.go"
run go-vet-new "$FX/change/vet" go vet ./...

# --- python: test_vendor_api fails before any change; the change adds a failing test_result.
pybase() {
	local d=$1
	mkdir -p "$d"
	cat >"$d/test_calc.py" <<'EOF'
import unittest

class T(unittest.TestCase):
    def test_vendor_api(self):
        self.fail('the vendor API is down')

    def test_add(self):
        self.assertEqual(1 + 2, 3)
EOF
}
pybase "$FX/base/py"
run unittest-base "$FX/base/py" python3 -m unittest
run pytest-base "$FX/base/py" "$PYTEST_PY" -m pytest -p no:cacheprovider
pybase "$FX/change/py"
sed -i 's/^import unittest$/import unittest\n\n# Two lines more./' "$FX/change/py/test_calc.py"
run unittest-same "$FX/change/py" python3 -m unittest
run pytest-same "$FX/change/py" "$PYTEST_PY" -m pytest -p no:cacheprovider
cat >"$FX/change/py/test_new.py" <<'EOF'
import unittest

class N(unittest.TestCase):
    def test_result(self):
        self.assertEqual(1, 2, 'broken by the change')

    def test_sub(self):
        for i in range(2):
            with self.subTest(i=i):
                self.assertEqual(i, 0)
EOF
run unittest-new "$FX/change/py" python3 -m unittest
run pytest-new "$FX/change/py" "$PYTEST_PY" -m pytest -p no:cacheprovider
rm "$FX/change/py/test_new.py"
echo 'import nonexistent_module' >"$FX/change/py/test_broken.py"
run unittest-import "$FX/change/py" python3 -m unittest
run pytest-collect "$FX/change/py" "$PYTEST_PY" -m pytest -p no:cacheprovider
rm "$FX/change/py/test_broken.py"

# --- node --test: 'sum' fails before any change; the change adds a failing test in a suite.
nodebase() {
	local d=$1
	mkdir -p "$d"
	echo '{"name":"n","version":"1.0.0","private":true}' >"$d/package.json"
	cat >"$d/sum.test.js" <<'EOF'
const test = require('node:test');
const assert = require('node:assert');
test('sum', () => assert.strictEqual(1 + 1, 3, 'the sum is off upstream'));
test('ok', () => assert.ok(true));
EOF
}
nodebase "$FX/base/node"
run node-tap-base "$FX/base/node" node --test
run node-spec-base "$FX/base/node" node --test --test-reporter=spec
nodebase "$FX/change/node"
sed -i "s/^const assert = require('node:assert');$/const assert = require('node:assert');\n\/\/ One line more./" "$FX/change/node/sum.test.js"
run node-tap-same "$FX/change/node" node --test
run node-spec-same "$FX/change/node" node --test --test-reporter=spec
cat >"$FX/change/node/suite.test.js" <<'EOF'
const test = require('node:test');
test('suite', async (t) => {
  await t.test('inner good', () => {});
  await t.test('inner bad', () => { throw new Error('inner boom at 0x7ffd3a2c') });
});
EOF
echo 'const x = ;' >"$FX/change/node/syntax.test.js"
run node-tap-new "$FX/change/node" node --test
run node-spec-new "$FX/change/node" node --test --test-reporter=spec
run node-junit-new "$FX/change/node" node --test --test-reporter=junit
run node-junit-base "$FX/base/node" node --test --test-reporter=junit

# --- cargo test: tests::vendor_api fails before any change.
cargobase() {
	local d=$1
	mkdir -p "$d/src"
	printf '[package]\nname = "m"\nversion = "0.1.0"\nedition = "2021"\n' >"$d/Cargo.toml"
	cat >"$d/src/lib.rs" <<'EOF'
pub fn add(a: i32, b: i32) -> i32 { a + b }

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn vendor_api() { panic!("the vendor API is down"); }
    #[test]
    fn adds() { assert_eq!(add(1, 2), 3); }
}
EOF
}
cargobase "$FX/base/rs"
run cargo-base "$FX/base/rs" cargo test --offline
cargobase "$FX/change/rs"
sed -i 's/^pub fn add/\/\/ One line more.\npub fn add/' "$FX/change/rs/src/lib.rs"
run cargo-same "$FX/change/rs" cargo test --offline
sed -i 's/^    fn adds() { assert_eq!(add(1, 2), 3); }$/    fn adds() { assert_eq!(add(1, 2), 3); }\n    #[test]\n    fn result() { assert_eq!(add(1, 1), 3, "broken"); }/' "$FX/change/rs/src/lib.rs"
run cargo-new "$FX/change/rs" cargo test --offline
echo 'pub fn broken() -> i32 { undefined_symbol }' >>"$FX/change/rs/src/lib.rs"
run cargo-build "$FX/change/rs" cargo test --offline

# --- make: a script with no reporter we read, whose output has times, durations, addresses and
# temporary paths.
makebase() {
	local d=$1
	mkdir -p "$d"
	printf 'check:\n\t./check.sh\n' >"$d/Makefile"
	cat >"$d/check.sh" <<'EOF'
#!/bin/sh
tmp=$(mktemp -d)
echo "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ) starting in $tmp"
echo "ok   test_add (0.0$$s)"
echo "FAIL test_vendor_api: vendor at 0x$(printf %x $$)c0 refused ($(date +%N | cut -c1-3)ms)"
[ -f extra ] && echo "FAIL test_result: 1 != 2"
echo "done at $(date +%H:%M:%S)"
exit 1
EOF
	chmod +x "$d/check.sh"
}
makebase "$FX/base/make"
run make-base "$FX/base/make" make check
makebase "$FX/change/make"
run make-same "$FX/change/make" make check
touch "$FX/change/make/extra"
run make-new "$FX/change/make" make check
