"""Actions of the Hello Web driver.

Styrmin runs each function in its own Python process with this bundle on the
import path; prompts arrive as keyword arguments. Commands that must reach the
site run in a short-lived Job in the deployment's namespace (execute_commands),
because only pods inside the cluster can resolve the Service's name.
"""

import os
import re
import shlex

import styrmin

# A small image with a shell and wget; nothing else is needed to fetch a page.
CLIENT_IMAGE = "busybox:1.36"

# The component the chart's Deployment belongs to (see driver.styrmin.yml).
WEB_COMPONENT = "web"

PATH_PATTERN = re.compile(r"^/[A-Za-z0-9._~/-]*$")


def _site_url(path: str = "/") -> str:
    """Return the in-cluster URL of the site's Service, named as the chart names it."""
    release = os.environ.get("STYRMIN_RELEASE", "")
    if not release:
        raise RuntimeError(
            "STYRMIN_RELEASE is not set: run this action through Styrmin, "
            "which sets it to the deployment's Helm release name"
        )
    # Mirrors the chart's "hello-web.fullname": <release>-hello-web, at most 40 characters.
    service = f"{release}-hello-web"[:40].rstrip("-")
    return f"http://{service}:80{path}"


def smoke_test() -> None:
    """Fetch the home page from inside the cluster and check that it is the generated site.

    Retries for up to two minutes while the new pods become ready, then fails if
    the page cannot be fetched or does not look like the page the chart renders.
    """
    url = _site_url("/")
    styrmin.log.info("Fetching %s from inside the cluster", url)
    # Each attempt fetches the page once and checks that very page, so a site
    # that answered is never fetched a second time; the last attempt's error
    # says why it failed.
    script = (
        "set -u; "
        f"url={shlex.quote(url)}; "
        'dir=$(mktemp -d); trap \'rm -rf "$dir"\' EXIT; '
        "for attempt in $(seq 1 24); do "
        '  if wget -q -T 5 -O "$dir/page.html" "$url" 2>"$dir/wget.err"; then '
        '    if grep -q "<title>" "$dir/page.html" && grep -q "deployed with Styrmin" "$dir/page.html"; then '
        '      echo "fetched $(wc -c < "$dir/page.html") bytes on attempt $attempt"; exit 0; '
        "    fi; "
        '    echo "attempt $attempt: $url answered, but not with the generated page"; '
        "  else "
        '    echo "attempt $attempt: $url not reachable yet: $(tail -n 1 "$dir/wget.err")"; '
        "  fi; "
        "  sleep 5; "
        "done; "
        'echo "$url did not serve the generated page in 24 attempts" >&2; exit 1'
    )
    styrmin.execute_commands([script], image=CLIENT_IMAGE, timeout=240)
    styrmin.log.info("The site answers at %s and serves the generated page", url)


def fetch_page(path: str = "/") -> None:
    """Request one path of the site from inside the cluster and report its HTTP status.

    Fails when the server answers with an error status (4xx or 5xx) or not at all.
    """
    if not PATH_PATTERN.match(path):
        raise ValueError(f"path {path!r} must start with / and use only letters, digits and . _ ~ / -")
    url = _site_url(path)
    styrmin.log.info("Fetching %s", url)
    script = (
        "set -eu -o pipefail; "
        f"url={shlex.quote(url)}; "
        'wget -S -T 10 -O /tmp/body "$url" 2>&1 | grep -E "^ +HTTP/"; '
        'echo "body: $(wc -c < /tmp/body) bytes"'
    )
    styrmin.execute_commands([script], image=CLIENT_IMAGE, timeout=60)
    styrmin.log.info("%s answered with a success status", url)


def restart() -> None:
    """Scale the web component to zero, then back to its remembered replica count."""
    styrmin.log.info("Stopping the %s component", WEB_COMPONENT)
    styrmin.stop_components([WEB_COMPONENT])
    styrmin.log.info("Starting the %s component again", WEB_COMPONENT)
    styrmin.start_components([WEB_COMPONENT])
    styrmin.log.info("The web server has restarted")
