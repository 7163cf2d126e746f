#!/usr/bin/env bash
# fetch.sh OUTDIR -- rebuild the footstep/impact training set listed in manifest.csv
# from Debian 12 (bookworm) packages.
#
#   1. refuses to run if a reserved (evaluation-only) package appears in the manifest
#   2. `apt-get download` for exactly the packages named in the manifest (prints versions)
#   3. extracts only the manifest's files into OUTDIR/<package>/<path>
#      (paths of the form ARCHIVE::INNER are members of an archive inside the package:
#       an OpenClonk c4group, unpacked with c4group_extract.py into OUTDIR/<package>/ARCHIVE/INNER,
#       or a zip (0 A.D.'s public.zip), whose members go to OUTDIR/<package>/ARCHIVE.d/INNER)
#   4. converts each file to 16 kHz mono 16-bit WAV: OUTDIR/wav/<package>__<flattened path>.wav
#   5. verifies every manifest file exists (raw and wav); exits non-zero otherwise
#
# Needs: apt-get (with `apt-get update` done), dpkg-deb, tar, sox (with ogg support), python3.
# Env: KEEP_DEBS=1 keeps OUTDIR/debs/*.deb (default: deleted after a successful run).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MANIFEST="${MANIFEST:-$HERE/manifest.csv}"
C4="$HERE/c4group_extract.py"

die() { echo "fetch.sh: ERROR: $*" >&2; exit 1; }

[ $# -eq 1 ] || die "usage: $0 OUTDIR"
OUT="$1"
[ -f "$MANIFEST" ] || die "manifest not found: $MANIFEST"
[ -f "$C4" ] || die "helper not found: $C4"
for t in apt-get dpkg-deb tar sox python3; do
    command -v "$t" >/dev/null || die "required tool missing: $t"
done

# Packages reserved for independent evaluation: never download or use them.
RESERVED="minetest-data openarena-data openarena-088-data nexuiz-data flare-game teeworlds-data ddnet-data hedgewars-data supertux-data
ardentryst scratch crossfire-client btanks-data cavepacker-data caveexpress-data amphetamine-data freeciv-data libmlv3-dev
sonic-pi-samples sonic-pi pushover enigma-data heroes-sound-effects"
# Packages that ship copies of other packages' sounds (cube2-data carries 0 A.D. sounds): never used,
# so no recording family crosses the evaluation's splits.
RESERVED="$RESERVED cube2-data luanti-data"

# --- parse manifest (python csv handles quoted fields) -----------------------
PKGS=$(python3 - "$MANIFEST" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
need = ['package', 'version', 'path_in_package', 'category']
for r in rows:
    for k in need:
        if not r.get(k):
            sys.exit(f"manifest row missing {k}: {r}")
print(' '.join(sorted({r['package'] for r in rows})))
EOF
) || die "could not parse manifest"

for p in $PKGS; do
    for r in $RESERVED; do
        [ "$p" = "$r" ] && die "manifest names reserved package '$p' -- refusing to run"
    done
done
# also refuse if a reserved name appears anywhere in the manifest text (paths, notes)
for r in $RESERVED; do
    if grep -qiw -- "$r" "$MANIFEST"; then die "manifest mentions reserved package '$r' -- refusing to run"; fi
done

mkdir -p "$OUT/debs" "$OUT/wav"
OUT="$(cd "$OUT" && pwd)"
START=$(date +%s)

# --- download ----------------------------------------------------------------
echo "== downloading: $PKGS"
for p in $PKGS; do
    if ! ls "$OUT/debs/${p}_"*.deb >/dev/null 2>&1; then
        ( cd "$OUT/debs" && apt-get download -q "$p" ) || die "apt-get download failed for package '$p' (run apt-get update? is this Debian 12?)"
    fi
    deb=$(ls "$OUT/debs/${p}_"*.deb 2>/dev/null | head -1)
    [ -n "$deb" ] || die "no .deb for '$p' after download"
    got=$(dpkg-deb -f "$deb" Version)
    want=$(python3 -c 'import csv,sys; print({r["version"] for r in csv.DictReader(open(sys.argv[1])) if r["package"]==sys.argv[2]}.pop())' "$MANIFEST" "$p")
    if [ "$got" = "$want" ]; then
        echo "   $p $got"
    else
        echo "   $p $got  (WARNING: manifest was built from $want; files are still verified below)"
    fi
done

# --- extract + convert (per package) ------------------------------------------
for p in $PKGS; do
    deb=$(ls "$OUT/debs/${p}_"*.deb | head -1)
    dest="$OUT/$p"
    # a fresh copy each run (an earlier run may have unpacked an archive member in place)
    rm -rf "$dest"
    mkdir -p "$dest"
    # plain members: list of ./path ; group members: list of GROUP (archive file)
    python3 - "$MANIFEST" "$p" > "$OUT/.members.$p" <<'EOF'
import csv, sys
seen = set()
for r in csv.DictReader(open(sys.argv[1], newline='')):
    if r['package'] != sys.argv[2]: continue
    m = './' + r['path_in_package'].split('::')[0]
    if m not in seen:
        seen.add(m); print(m)
EOF
    echo "== extracting $(wc -l < "$OUT/.members.$p") member(s) from $(basename "$deb")"
    dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" -T "$OUT/.members.$p" \
        || die "extraction from $p failed (a manifest path is missing from the package?)"
    rm -f "$OUT/.members.$p"
done

# c4group members, conversion and verification are done in one python pass
python3 - "$MANIFEST" "$OUT" "$C4" <<'EOF'
import csv, os, subprocess, sys, importlib.util, collections, zipfile
manifest, out, c4path = sys.argv[1:4]
spec = importlib.util.spec_from_file_location('c4', c4path); c4 = importlib.util.module_from_spec(spec); spec.loader.exec_module(c4)
rows = list(csv.DictReader(open(manifest, newline='')))
groups = {}
roots = {}
errors = []
names = collections.Counter()
counts = collections.Counter(); secs = collections.Counter()
for r in rows:
    pkg, path = r['package'], r['path_in_package']
    if '::' in path:
        grp, inner = path.split('::', 1)
        gfile = os.path.join(out, pkg, grp)
        key = (pkg, grp)
        if key not in groups:
            if not os.path.isfile(gfile):
                errors.append(f'missing archive {pkg}:{grp}'); continue
            if grp.endswith('.zip'):               # 0 A.D.'s public.zip (3 GB): read members on demand
                archive = zipfile.ZipFile(gfile)
                groups[key] = {n: (lambda n=n, a=archive: a.read(n)) for n in archive.namelist()}
                extracted = os.path.join(out, pkg, grp + '.d')
            else:                                  # OpenClonk c4group: parsed whole
                members = {}
                c4.parse(c4.load(gfile), '', members)
                groups[key] = {n: (lambda d=d: d) for n, d in members.items()}
                os.remove(gfile)                   # replace archive by a directory
                os.makedirs(gfile, exist_ok=True)
                extracted = gfile
            roots[key] = extracted
        if inner not in groups[key]:
            errors.append(f'missing {pkg}:{path}'); continue
        src = os.path.join(roots[key], inner)
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, 'wb') as fh: fh.write(groups[key][inner]())
    else:
        src = os.path.join(out, pkg, path)
    if not os.path.isfile(src):
        errors.append(f'missing {pkg}:{path}'); continue
    flat = os.path.splitext(path.replace('::', '/'))[0].strip('/').replace('/', '_')
    name = f'{pkg}__{flat}.wav'
    names[name] += 1
    if names[name] > 1:
        errors.append(f'flattened name collision: {name}'); continue
    dst = os.path.join(out, 'wav', name)
    p = subprocess.run(['sox', '-q', src, '-r', '16000', '-c', '1', '-b', '16', dst], capture_output=True, text=True)
    if p.returncode != 0 or not os.path.isfile(dst):
        errors.append(f'sox failed for {pkg}:{path}: {p.stderr.strip()}'); continue
    d = float(subprocess.check_output(['soxi', '-D', dst], text=True))
    counts[r['category']] += 1; secs[r['category']] += d
for (pkg, grp) in roots:
    if grp.endswith('.zip'):
        os.remove(os.path.join(out, pkg, grp))    # the members needed are extracted
if errors:
    print('\n'.join('fetch.sh: ERROR: ' + e for e in errors), file=sys.stderr)
    sys.exit(1)
print(f'== verified {len(rows)} manifest files; wav written to {out}/wav')
for k in sorted(counts):
    print(f'   {k:9s} {counts[k]:4d} files {secs[k]:9.1f} s')
EOF
[ $? -eq 0 ] || die "verification failed"

n=$(ls "$OUT/wav" | wc -l)
echo "== $n wav files in $OUT/wav"
if [ "${KEEP_DEBS:-0}" != "1" ]; then rm -rf "$OUT/debs"; fi
echo "== done in $(( $(date +%s) - START )) s"
