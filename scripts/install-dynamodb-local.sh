#!/usr/bin/env bash
# Installs AWS's DynamoDB Local (DynamoDBLocal.jar 1.25.1 and its DynamoDBLocal_lib/) into
# .cdk/dynamodb-local, unless that exact version is already there. The jar ships in the npm
# package amplify-dynamodb-simulator, pinned below with the sha256 of its tarball: `npm pack`
# fetches the tarball alone (none of its dependencies) into .cdk/cache, and only its emulator/
# folder is extracted. Needs npm, the npm registry, and Java 17 or newer to run the jar.
set -euo pipefail

package="amplify-dynamodb-simulator"
version="2.9.30"
tarball_sha256="3503ffac19f183407909fecdacf4db51ab1fdad1da7b2f177016670b2d80e4b9"
java_install="apt-get install openjdk-17-jre-headless"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/.cdk/cache"
dest="$root/.cdk/dynamodb-local"
stamp="$dest/.turnstile-package"
want="$package@$version $tarball_sha256"

# Java first: without it the installed jar is of no use, and the error should say so at once.
if ! command -v java >/dev/null; then
	echo "setup: java not found; DynamoDB Local needs Java 17 or newer (on Debian/Ubuntu: $java_install)" >&2
	exit 1
fi
java_version="$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)"
if [[ -z "$java_version" || "$java_version" -lt 17 ]]; then
	echo "setup: java is version ${java_version:-unknown}; DynamoDB Local needs Java 17 or newer (on Debian/Ubuntu: $java_install)" >&2
	exit 1
fi

if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -f "$dest/DynamoDBLocal.jar" ]]; then
	echo "setup: DynamoDB Local is up to date ($package@$version, java $java_version)"
	exit 0
fi

if ! command -v npm >/dev/null; then
	echo "setup: npm not found; install Node.js 20 or newer with npm, then run make setup again" >&2
	exit 1
fi
mkdir -p "$cache"
file="$cache/$package-$version.tgz"
if [[ ! -f "$file" ]] || ! sha256sum --quiet --check <<<"$tarball_sha256  $file" 2>/dev/null; then
	echo "setup: npm pack $package@$version into .cdk/cache"
	rm -f "$file"
	(cd "$cache" && npm pack "$package@$version" --silent >/dev/null)
fi
if ! sha256sum --quiet --check <<<"$tarball_sha256  $file"; then
	echo "setup: $file does not have the pinned sha256 $tarball_sha256; delete it and run make setup again" >&2
	exit 1
fi

tmp="$(mktemp -d "$root/.cdk/dynamodb-local.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$file" -C "$tmp" package/emulator/
for f in DynamoDBLocal.jar DynamoDBLocal_lib/sqlite4java.jar; do
	if [[ ! -f "$tmp/package/emulator/$f" ]]; then
		echo "setup: $package@$version has no emulator/$f" >&2
		exit 1
	fi
done
rm -rf "$dest"
mv "$tmp/package/emulator" "$dest"
echo "$want" >"$stamp"
echo "setup: installed DynamoDB Local into .cdk/dynamodb-local ($package@$version, java $java_version)"
