#!/bin/sh
# snapshot_repo.sh SOURCE DEST TAG: a git repository at DEST holding SOURCE's working tree as it is
# now (tracked and untracked files, not the ignored ones: what `git status` shows, uncommitted
# changes included) in one commit tagged TAG, for the tests that fetch the project by git URL the
# way a consumer does (CMake FetchContent, SwiftPM by version). SOURCE must be a git checkout; the
# project's own repository is only read.
set -eu
source=$1 dest=$2 tag=$3
git -C "$source" rev-parse --is-inside-work-tree > /dev/null
mkdir -p "$dest"
# Files deleted but not yet committed are listed by ls-files and no longer there: skipped.
(cd "$source" && git ls-files -z --cached --others --exclude-standard) |
  (cd "$source" && tar --null --no-recursion --ignore-failed-read -cf - -T - 2> /dev/null) |
  tar -C "$dest" -xf -
cd "$dest"
git init -q
git add -A
git -c user.name=interlock-tests -c user.email=tests@invalid -c commit.gpgsign=false \
  commit -q -m "snapshot of $source"
git tag "$tag"
