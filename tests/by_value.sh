#!/usr/bin/env bash
# The large structs travel by pointer, never by value: no function (host/,
# pipelines/, tests/, declared or defined) takes or returns a cs_scene, a
# cs_world, a particle fluid (cs_fluid and the solvers that embed one) or
# the bodies' GPU set by value. A copy of one is hundreds of KiB on the
# stack and a second, silently diverging, scene. The build's
# -Wframe-larger-than (CMakeLists.txt) catches such copies in frames; this
# catches them in signatures, where a by-value parameter is easy to miss.
# ctest labels: quick -- 0.1 (no scene, world or fluid passed by value)
set -euo pipefail
cd "$(dirname "$0")/.."

TYPES='cs_scene|cs_world|cs_fluid|cs_pbf|cs_sph|cs_wcsph|cs_body_set|cs_fluid_params|cs_bodies'

# Prints file:line: text for every by-value parameter or return of TYPES in
# the files given.
scan() {
    perl -0777 -ne '
        my $types = qr/(?:'"$TYPES"')/;
        my $text = $_;
        $text =~ s{/\*.*?\*/}{ }gs;   # comments out, newlines kept for line numbers
        $text =~ s{//[^\n]*}{}g;
        # A parameter: after "(" or ",", the type (maybe const), a name, then "," or ")".
        while ($text =~ /[(,]\s*(?:const\s+)?($types)\s+(\w+)\s*[,)]/g) {
            my $at = substr($text, 0, $-[1]);
            my $line = ($at =~ tr/\n//) + 1;
            print "$ARGV:$line: parameter $2 of type $1 by value\n";
        }
        # A return: a line that starts a declaration or definition returning one.
        while ($text =~ /^(?:static\s+|inline\s+|extern\s+)*(?:const\s+)?($types)\s+(\w+)\s*\(/mg) {
            my $at = substr($text, 0, $-[1]);
            my $line = ($at =~ tr/\n//) + 1;
            print "$ARGV:$line: $2 returns a $1 by value\n";
        }
    ' "$@"
}

# The check checks itself first: a by-value parameter and return are found.
sample=$(mktemp)
trap 'rm -f "$sample"' EXIT
cat >"$sample" <<'EOF'
void take(int a,
          const cs_scene scene);
cs_world make_world(void);
void fine(const cs_scene *scene, cs_world *world, cs_fluid f[]);
EOF
found=$(scan "$sample" | wc -l)
if [ "$found" -ne 2 ]; then
    echo "by_value.sh: the scan found $found of the sample's 2 by-value uses:" >&2
    scan "$sample" >&2
    exit 1
fi

files=$(find host pipelines tests -name '*.c' -o -name '*.h' | sort)
# shellcheck disable=SC2086
bad=$(scan $files || true)
if [ -n "$bad" ]; then
    echo "$bad"
    echo "by_value.sh: pass these by pointer (const where only read)" >&2
    exit 1
fi
echo "by_value.sh: no cs_scene, cs_world, fluid or body set passed or returned by value ($(echo "$files" | wc -l) files)"
