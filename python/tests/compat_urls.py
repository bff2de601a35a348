# SPDX-License-Identifier: MIT
"""Generated http(s) URLs for the differential tests of the w3lib profile
and the surt column: every piece valid RFC 3986, chosen to reach the rules
of both libraries (percent-encoding in every component, non-ASCII bytes,
IDN hosts, IPv4 forms, ports, empty and repeated parameters, ';'
parameters, session ids, dot segments, "www"), mixed by a seeded
generator so the same seed gives the same URLs everywhere."""
import random

SCHEMES = ["http", "https", "HTTP", "Https"]
USERINFO = [None, None, None, "user", "U%41:p%3A", "a:", ""]
HOSTS = [
    "example.com", "Example.COM", "www.example.com", "WWW.Example.org",
    "www2.example.net", "www.www.example.com", "wwwx.example.com",
    "sub.www.example.com", "example.com.", "a..b.example", ".example.com",
    "%41bc.example", "ex%2Eample.com", "%C3%A9xample.com",
    "b%C3%BCcher.de", "%E4%BE%8B.jp", "xn--bcher-kva.de", "%E9t%E9.fr",
    "127.0.0.1", "127.1", "2130706433", "0x7f.0.0.1", "0x7F.1",
    "0177.0.0.1", "010.0.0.1", "10.08.0.1", "1.2.3.4.5", "999.1.1.1",
    "4294967296", "0", "127.0.0.1.", "[::1]", "[2001:DB8::A]",
    "[::ffff:1.2.3.4]", "[v1.x]", "localhost", "a-b.c_d.example", "",
]
PORTS = [None, None, None, "", "80", "443", "8080", "0", "00080", "65535"]
SEGMENTS = [
    "", "a", "A", "b", "%7Euser", "%2F", "%2f", "%3F", "%3f", "%20", "%25",
    "%2541", "caf%C3%A9", "%E9", ".", "..", "%2E", "%2e%2E", "a;b", "x;",
    ";jsessionid=ABC123", "p;JSESSIONID=1;q=2", "page.aspx", "Page.ASPX",
    "(S(abcdefghijklmnopqrstuvwx))", "(abcdefghijklmnopqrstuvwx)", "+",
    "!$&'()*,=:@", "a%7C", "~", "%5C", "%23", "%00", "Index.HTML", "%41",
]
FIELDS = [
    "a=1", "a=2", "b=", "c", "", "A=2", "q=a+b", "q=%20", "q=%2B", "x=%E9",
    "x=caf%C3%A9", "k=%3D%26", "z=1;y=2", "=v", "%61=1", "s=/?:@",
    "n=%00", "utm_source=x", "UTM_Medium=y", "utm_campaign=", "gclid=1",
    "jsessionid=0123456789ABCDEF0123456789abcdef",
    "PHPSESSID=0123456789abcdef0123456789ABCDEF", "sid=" + "a" * 32,
    "SessionId=7", "ASPSESSIONIDQQGGGNCU=ABCDEFGHIJKLMNOPQRSTUVWX",
    "CFID=12&CFTOKEN=34", "cfid=1", "%7E=%7e", "a=%2525", "B=1", "b=0",
]
FRAGMENTS = [None, None, "", "frag", "a%20b", "x?y"]
SPECIAL = [
    "http://http://example.com/x", "https://https://a.example/",
    "http://https://example.com/A", "http:////example.com/a",
    "http:x", "http:///a/b", "http://", "http://?q", "https://#f",
    "http://a.example", "http://a.example?", "http://a.example/?",
    "http://a.example/?&", "http://a.example/?a&a=&a=1",
    "http://a.example:/", "http://u@:80/x", "http://a.example/a//b///c/",
    "http://a.example/../a", "http://a.example/a/../../b",
    "http://A.example/%7e%7E?%7e=%7E", "http://a.example/;x",
    "http://a.example/a;b/c;d", "http://a.example/a;", "http:?x",
    "http://a.example/p?utm_source=a&UTM_SOURCE=b",
    "http://a.example/x?jsessionid=0123456789abcdef0123456789abcdef",
    "http://a.example/x?ajsessionid=0123456789abcdef0123456789abcdef&b=1",
    "http://a.example/(S(abcdefghijklmnopqrstuvwx))/p.aspx",
    "http://a.example/x/(a(abcdefghijklmnopqrstuvwx)b(abcdefghijklmnopqrstu"
    "vwx))/y/z.aspx?q",
    "http://a.example:99999/", "https://a.example:443/", "http://a:0/",
    # IDNA: IDNA 2003's mapping (sharp s), dots other than '.', bytes that
    # are not UTF-8.
    "http://fa%C3%9F.de/", "http://FA%C3%9F.de/x", "http://%E3%80%82a.de/",
    "http://a%EF%BC%8Eb.de/", "http://%FF.de/", "http://www.fa%C3%9F.co.uk/",
    "http://b%C3%BCcher.de./",
    "http://%C3%BC%C3%BC..de/", "http://X%C3%9C.Example/",
]


def generated_urls(count=4000, seed=3986):
    rnd = random.Random(seed)
    urls = list(SPECIAL)
    while len(urls) < count:
        url = rnd.choice(SCHEMES) + "://"
        user = rnd.choice(USERINFO)
        if user is not None:
            url += user + "@"
        url += rnd.choice(HOSTS)
        port = rnd.choice(PORTS)
        if port is not None:
            url += ":" + port
        for _ in range(rnd.choice([0, 1, 1, 2, 3, 4])):
            url += "/" + rnd.choice(SEGMENTS)
        if rnd.random() < 0.6:
            fields = [rnd.choice(FIELDS)
                      for _ in range(rnd.choice([0, 1, 2, 3, 5]))]
            url += "?" + "&".join(fields)
        fragment = rnd.choice(FRAGMENTS)
        if fragment is not None:
            url += "#" + fragment
        urls.append(url)
    return urls
