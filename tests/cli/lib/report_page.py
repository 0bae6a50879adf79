"""What a `grove report` page holds, for the report tests (tests/cli/
report_*.sh): every element with its attributes, found by class, id or
data attribute, and the checks of a page dumped by a headless browser.

    python3 lib/report_page.py dom DUMPED.html LOG   # the browser's view
"""
import html.parser
import sys


class Page(html.parser.HTMLParser):
    def __init__(self, path):
        super().__init__(convert_charrefs=True)
        self.elements = []  # (tag, attrs dict)
        with open(path, encoding="utf-8") as f:
            self.feed(f.read())

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def by_class(self, cls, **data):
        """Elements whose class list has cls and whose data-* attributes
        (underscores for dashes) have the given values."""
        out = []
        for tag, a in self.elements:
            if cls not in a.get("class", "").split():
                continue
            if all(a.get("data-" + k.replace("_", "-")) == str(v)
                   for k, v in data.items()):
                out.append(a)
        return out

    def by_id(self, ident):
        for tag, a in self.elements:
            if a.get("id") == ident:
                return a
        return None

    def value(self, ident):
        a = self.by_id(ident)
        assert a is not None, "no element #" + ident
        return a["data-value"]


def check_dom(dumped, log):
    """The page as the browser left it after its script ran: the script's
    marker is there, no error marker, no console error."""
    p = Page(dumped)
    err = p.by_id("report-error")
    assert err is None, "the page's script failed (see the dump)"
    ready = p.by_id("report-ready")
    assert ready is not None, "the page's script did not run to its end"
    with open(log, encoding="utf-8", errors="replace") as f:
        for line in f:
            if "CONSOLE" in line and ("Uncaught" in line or "Error" in line):
                raise AssertionError("console: " + line.strip())
    # The script's own count agrees with the page's numbers.
    assert ready["data-waves"] == p.value("sum-waves"), ready
    assert int(ready["data-paths"]) == len(p.by_class("path-row"))
    return p, ready


if __name__ == "__main__":
    if sys.argv[1] == "dom":
        check_dom(sys.argv[2], sys.argv[3])
