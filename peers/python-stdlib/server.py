#!/usr/bin/env python3
"""Independent peer implementation of the Records, Files, Links and Proposal Scheduling Service.

Python 3.11 standard library only. Start:  python3 server.py --port N   (0 = any free port)
The store is a fresh SQLite file in a temporary directory per start; it is removed on SIGTERM.
The provider-state endpoint (test harness) is served at POST /_provider-states.
"""
import argparse
import base64
import binascii
import datetime as dt
import json
import os
import random
import re
import secrets
import shutil
import signal
import sqlite3
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlsplit

PROTOCOL = '1.2.0'
MAX_BODY = 10 * 1024 * 1024
MAX_BULK_ITEMS = 25
TOKEN_LIFETIME = 30 * 60

# --------------------------------------------------------------------------------------------
# Domains and their fields
# --------------------------------------------------------------------------------------------
# field types: key, int, num, text, bool, date, ts, ('assoc', Domain, KeyField), ('coded', list)
DOMAINS = [
    (1, 'Claim', 'Claim', 'Claims'),
    (2, 'Contact', 'Contact', 'Contacts'),
    (3, 'Location', 'Location', 'Locations'),
    (4, 'File', 'File', 'Files'),
    (5, 'Note', 'Note', 'Notes'),
    (6, 'Policy', 'Policy', 'Policies'),
    (7, 'Task', 'Task', 'Tasks'),
    (11, 'Incident', 'Incident', 'Incidents'),
    (12, 'Member', 'Member', 'Members'),
    (13, 'Proposal', 'Proposal', 'Proposals'),
    (14, 'ProposalLocation', 'Proposal Location', 'Proposal Locations'),
    (15, 'ProposalVehicle', 'Proposal Vehicle', 'Proposal Vehicles'),
    (1001, 'Custom.Inspection', 'Inspection', 'Inspections'),
]
DOMAIN_ID = {d[1]: d[0] for d in DOMAINS}
DOMAIN_BY_ID = {d[0]: d[1] for d in DOMAINS}

SCHEMAS = {
    'Claim': {'ClaimID': 'key', 'ClaimNumber': 'text', 'ClaimantName': 'text', 'Status': 'text',
              'Description': 'text', 'Notes': 'text', 'ReserveAmount': 'num', 'PaidAmount': 'num',
              'LossDate': 'date', 'LocationID': 'int', 'Location': ('assoc', 'Location', 'LocationID'),
              'Custom2Code': ('coded', 'ClaimType')},
    'Contact': {'ContactID': 'key', 'Name': 'text', 'Email': 'text', 'ContactCode': 'int', 'Phone': 'text',
                'IsActive': 'bool'},
    'Location': {'LocationID': 'key', 'LocationName': 'text', 'Address1': 'text', 'City': 'text',
                 'StateCode': 'text', 'ZipCode': 'text', 'IsPrimary': 'bool'},
    'File': {'FileID': 'key', 'FileName': 'text', 'Description': 'text', 'MimeType': 'text', 'FileSize': 'int',
             'EntryDate': 'ts', 'EntryUserID': 'int', 'ModifiedDate': 'ts', 'ModifiedUserID': 'int',
             'DownloadedDate': 'ts', 'DownloadedUserID': 'int', 'DocumentStatusID': 'int', 'SourceType': 'text',
             'IsUnlinked': 'bool', 'UnlinkedAccessMode': 'int', 'ExternalFileRepositoryID': 'int',
             'ExternalDirectURL': 'text'},
    'Note': {'NoteID': 'key', 'Subject': 'text', 'Body': 'text', 'IsPrivate': 'bool'},
    'Policy': {'PolicyID': 'key', 'PolicyNumber': 'text', 'MemberID': 'int', 'Member': ('assoc', 'Member', 'MemberID'),
               'ProposalID': 'int', 'EffectiveDate': 'date'},
    'Task': {'TaskID': 'key', 'Subject': 'text', 'DueDate': 'date', 'IsComplete': 'bool'},
    'Incident': {'IncidentID': 'key', 'IncidentNumber': 'text', 'Description': 'text', 'IncidentDate': 'date'},
    'Member': {'MemberID': 'key', 'MemberName': 'text', 'MemberNumber': 'text', 'IsActive': 'bool'},
    'Proposal': {'ProposalID': 'key', 'ProposalNumber': 'text', 'ProposalTypeCode': 'text', 'StatusCode': 'text',
                 'ApplicantName': 'text', 'MemberID': 'int', 'Member': ('assoc', 'Member', 'MemberID'),
                 'RatingStatusCode': 'text', 'PolicyID': 'int', 'IsProposalSetBound': 'bool',
                 'HasPendingExpiryChange': 'bool', 'EffectiveDate': 'date'},
    'ProposalLocation': {'ProposalLocationID': 'key', 'ProposalID': 'int', 'LocationName': 'text',
                         'Address1': 'text', 'City': 'text', 'StateCode': 'text', 'ZipCode': 'text'},
    'ProposalVehicle': {'ProposalVehicleID': 'key', 'ProposalID': 'int', 'VIN': 'text', 'Make': 'text',
                        'Model': 'text', 'ModelYear': 'int'},
    'Custom.Inspection': {'InspectionID': 'key', 'InspectionNumber': 'text', 'Inspector': 'text', 'Notes': 'text',
                          'Score': 'num', 'InspectionDate': 'date', 'LocationID': 'int',
                          'Location': ('assoc', 'Location', 'LocationID'),
                          'InspectionTypeCode': ('coded', 'InspectionType')},
}
KEY = {d: next(f for f, t in s.items() if t == 'key') for d, s in SCHEMAS.items()}
DISPLAY = {'Claim': 'ClaimNumber', 'Contact': 'Name', 'Location': 'LocationName', 'File': 'FileName',
           'Note': 'Subject', 'Policy': 'PolicyNumber', 'Task': 'Subject', 'Incident': 'IncidentNumber',
           'Member': 'MemberName', 'Proposal': 'ProposalNumber', 'ProposalLocation': 'LocationName',
           'ProposalVehicle': 'VIN', 'Custom.Inspection': 'InspectionNumber'}
# per domain: (text match field, a field that is neither text nor numeric)
MATCH_FIELDS = {'Claim': ('ClaimNumber', 'Location'), 'Contact': ('Email', 'IsActive'),
                'Location': ('LocationName', 'IsPrimary'), 'File': ('FileName', 'IsUnlinked'),
                'Note': ('Subject', 'IsPrivate'), 'Policy': ('PolicyNumber', 'Member'), 'Task': ('Subject', 'DueDate'),
                'Incident': ('IncidentNumber', 'IncidentDate'), 'Member': ('MemberNumber', 'IsActive'),
                'Proposal': ('ProposalNumber', 'Member'), 'ProposalLocation': ('LocationName', 'ProposalID'),
                'ProposalVehicle': ('VIN', 'ModelYear'), 'Custom.Inspection': ('InspectionNumber', 'Location')}
CODE_LISTS = {
    'ClaimType': {'PR': 'Property', 'AU': 'Auto', 'LI': 'Liability'},
    'InspectionType': {'RT': 'Routine', 'FU': 'Follow-up'},
    'ContactType': {'ADJ': 'Adjuster', 'BRK': 'Broker', 'CLM': 'Claimant', 'DEF': 'Defense Attorney',
                    'EXP': 'Expert Witness'},
}
LINKABLE = ('Contact', 'File')
SCHEDULES = {
    'ProposalLocation': {'required': 'LocationName',
                         'fields': {'LocationName': 'text', 'Address1': 'text', 'City': 'text', 'StateCode': 'text',
                                    'ZipCode': 'text'}},
    'ProposalVehicle': {'required': 'VIN',
                        'fields': {'VIN': 'text', 'Make': 'text', 'Model': 'text', 'ModelYear': 'int'}},
}
TYPE_CODES = {'Quote': 'N', 'Application': 'A', 'Endorsement': 'E', 'Renewal': 'R', 'Rewrite': 'W', 'Reissue': 'I'}
TYPE_NAMES = {v: k for k, v in TYPE_CODES.items()}
PERMISSIONS = ['View', 'Edit', 'AttachContacts', 'DetachContacts', 'AttachFiles', 'ModifyFiles', 'RestrictDownload',
               'Full']
ADMIN_PERMS = [p for p in PERMISSIONS if p != 'RestrictDownload']
LINK_COLUMNS = ['LinkID', 'ParentDomainID', 'ParentID', 'ChildDomainID', 'ChildID', 'ContactTypeID']


def scalar_fields(domain):
    return [f for f, t in SCHEMAS[domain].items() if not isinstance(t, tuple)]


def now_local():
    return dt.datetime.utcnow().isoformat(timespec='milliseconds')


def now_utc():
    return dt.datetime.now(dt.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%f')[:-3] + 'Z'


# --------------------------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------------------------
class HttpError(Exception):
    def __init__(self, status, message, body=None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.body = body  # a raw JSON value to send instead of {"Message": ...}


def bad(msg):
    return HttpError(400, msg)


def not_found(msg):
    return HttpError(404, msg)


def forbidden(msg):
    return HttpError(403, msg)


class BadParams(Exception):
    pass


class CannotExist(Exception):
    pass


# --------------------------------------------------------------------------------------------
# Store
# --------------------------------------------------------------------------------------------
class Store:
    def __init__(self, path):
        self.lock = threading.RLock()
        self.db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self.db.execute('PRAGMA journal_mode=WAL')
        self.db.execute('PRAGMA synchronous=OFF')
        self.db.executescript('''
            CREATE TABLE records (domain TEXT NOT NULL, id INTEGER NOT NULL, data TEXT NOT NULL, tag TEXT,
                                  PRIMARY KEY (domain, id));
            CREATE TABLE links (LinkID INTEGER PRIMARY KEY AUTOINCREMENT, ParentDomain TEXT, ParentID INTEGER,
                                ChildDomain TEXT, ChildID INTEGER, ContactTypeID TEXT, tag TEXT);
            CREATE INDEX links_child ON links (ChildDomain, ChildID);
            CREATE INDEX links_parent ON links (ParentDomain, ParentID);
            CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, password TEXT, tag TEXT);
            CREATE TABLE perms (user_id INTEGER, domain TEXT, perm TEXT);
            CREATE TABLE tokens (token TEXT PRIMARY KEY, user_id INTEGER, expires REAL, tag TEXT);
            CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE saved_settings (setup_id TEXT, name TEXT, value TEXT);
            CREATE TABLE policy_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, proposal_id INTEGER,
                                         domain TEXT, record_id INTEGER, change TEXT, at TEXT);
            CREATE TABLE data_entry_events (id INTEGER PRIMARY KEY AUTOINCREMENT, proposal_id INTEGER,
                                            domain TEXT, record_id INTEGER, event TEXT, at TEXT);
        ''')
        self.db.execute("INSERT INTO settings VALUES ('Service.EnableEnhancedSessionIDSecurity', 'true')")
        self.next_id = 1000

    def new_id(self):
        with self.lock:
            self.next_id += 1
            while self.db.execute('SELECT 1 FROM records WHERE id=?', (self.next_id,)).fetchone():
                self.next_id += 1
            return self.next_id

    # records
    def get(self, domain, rid):
        row = self.db.execute('SELECT data FROM records WHERE domain=? AND id=?', (domain, rid)).fetchone()
        return json.loads(row[0]) if row else None

    def all(self, domain):
        return [json.loads(r[0]) for r in
                self.db.execute('SELECT data FROM records WHERE domain=? ORDER BY id', (domain,))]

    def insert(self, domain, data, tag=None, rid=None):
        if rid is None:
            rid = self.new_id()
        data = dict(data)
        data[KEY[domain]] = rid
        self.db.execute('INSERT INTO records (domain, id, data, tag) VALUES (?,?,?,?)',
                        (domain, rid, json.dumps(data), tag))
        return rid

    def put(self, domain, data):
        self.db.execute('UPDATE records SET data=? WHERE domain=? AND id=?',
                        (json.dumps(data), domain, data[KEY[domain]]))

    def delete(self, domain, rid):
        self.db.execute('DELETE FROM records WHERE domain=? AND id=?', (domain, rid))

    def setting(self, name):
        row = self.db.execute('SELECT value FROM settings WHERE name=?', (name,)).fetchone()
        return row[0] if row else None

    def linked_file_ids(self):
        return {r[0] for r in self.db.execute("SELECT DISTINCT ChildID FROM links WHERE ChildDomain='File'")}


STORE = None


# --------------------------------------------------------------------------------------------
# Users, tokens, permissions
# --------------------------------------------------------------------------------------------
class User:
    def __init__(self, uid, perms):
        self.id = uid
        self.perms = perms  # domain -> set

    def has(self, domain, perm):
        return perm in self.perms.get(domain, ())

    def require(self, domain, perm):
        if not self.has(domain, perm):
            raise forbidden(f"The user does not hold the {perm} permission on the domain '{domain}'.")

    def download_restricted(self):
        holds_restrict = any('RestrictDownload' in p for p in self.perms.values())
        holds_full = any('Full' in p for p in self.perms.values())
        return holds_restrict and not holds_full


def authenticate(headers):
    token = headers.get('Token')
    if not token:
        raise HttpError(401, 'Authorization has been denied for this request: the Token header is missing.')
    token = token.strip()
    row = STORE.db.execute('SELECT user_id, expires FROM tokens WHERE token=?', (token,)).fetchone()
    if not row:
        raise HttpError(401, 'Authorization has been denied for this request: the token is not valid.')
    if row[1] < time.time():
        raise HttpError(401, 'Authorization has been denied for this request: the token has expired.')
    perms = {}
    for d, p in STORE.db.execute('SELECT domain, perm FROM perms WHERE user_id=?', (row[0],)):
        perms.setdefault(d, set()).add(p)
    return User(row[0], perms)


def issue_token(uid, tag, expires=None):
    token = secrets.token_hex(24)
    STORE.db.execute('INSERT INTO tokens VALUES (?,?,?,?)',
                     (token, uid, expires if expires is not None else time.time() + TOKEN_LIFETIME, tag))
    return token


# --------------------------------------------------------------------------------------------
# Parameter parsing
# --------------------------------------------------------------------------------------------
BOOL_TRUE = {'true', '1', 'yes', 'y'}
BOOL_FALSE = {'false', '0', 'no', 'n'}


def parse_bool(q, name, default=False):
    if name not in q:
        return default
    v = q[name].strip().lower()
    if v in BOOL_TRUE:
        return True
    if v in BOOL_FALSE:
        return False
    raise bad(f"The value '{q[name]}' of the parameter '{name}' is not a boolean.")


def parse_int(q, name, default, minimum=None):
    if name not in q:
        return default
    v = q[name].strip()
    if not re.fullmatch(r'[+-]?\d+', v):
        raise bad(f"The value '{q[name]}' of the parameter '{name}' is not an integer.")
    n = int(v)
    if minimum is not None and n < minimum:
        raise bad(f"The parameter '{name}' must be at least {minimum}.")
    return n


def coerce(ftype, raw, field):
    """Turn a filter value (string) into the field's type."""
    if ftype in ('key', 'int', 'num'):
        try:
            return float(raw)
        except ValueError:
            raise bad(f"The value '{raw}' is not a number for the field '{field}'.")
    if ftype == 'bool':
        v = raw.strip().lower()
        if v in BOOL_TRUE:
            return True
        if v in BOOL_FALSE:
            return False
        raise bad(f"The value '{raw}' is not a boolean for the field '{field}'.")
    return raw


def field_type(domain, field):
    t = SCHEMAS[domain].get(field)
    if t is None or isinstance(t, tuple):
        return None
    return t


# --------------------------------------------------------------------------------------------
# Advanced Search filter:  Field:op:value  joined by &&
# --------------------------------------------------------------------------------------------
FILTER_OPS = {'eq', 'ne', 'neq', 'gt', 'ge', 'gte', 'lt', 'le', 'lte', 'contains', 'startswith', 'endswith'}


def compare(op, a, b):
    if op == 'eq':
        return a is not None and a == b
    if op in ('ne', 'neq'):
        return a != b
    if a is None or b is None:
        return False
    try:
        if op == 'gt':
            return a > b
        if op in ('ge', 'gte'):
            return a >= b
        if op == 'lt':
            return a < b
        if op in ('le', 'lte'):
            return a <= b
    except TypeError:
        return False
    sa, sb = str(a), str(b)
    if op == 'contains':
        return sb in sa
    if op == 'startswith':
        return sa.startswith(sb)
    if op == 'endswith':
        return sa.endswith(sb)
    return False


def parse_filter(domain, text):
    conds = []
    for part in text.split('&&'):
        pieces = part.split(':', 2)
        if len(pieces) != 3:
            raise bad(f"The filter condition '{part}' is not of the form Field:operator:value.")
        field, op, raw = pieces[0].strip(), pieces[1].strip().lower(), pieces[2]
        ftype = field_type(domain, field)
        if ftype is None:
            raise bad(f"The filter names an unknown field '{field}' of the domain '{domain}'.")
        if op not in FILTER_OPS:
            raise bad(f"The filter operator '{op}' is not supported.")
        if op in ('contains', 'startswith', 'endswith'):
            value = raw
        else:
            value = coerce(ftype, raw, field)
        conds.append((field, op, value, ftype))

    def pred(row):
        for field, op, value, ftype in conds:
            a = row.get(field)
            if ftype in ('key', 'int', 'num') and a is not None and op not in ('contains', 'startswith', 'endswith'):
                a = float(a)
            if not compare(op, a, value):
                return False
        return True
    return pred


# --------------------------------------------------------------------------------------------
# LINQ filter (Dynamic LINQ subset): comparisons, &&, ||, !, parentheses, literals,
# Field.Contains("x") / StartsWith / EndsWith; an optional lambda prefix "x =>".
# --------------------------------------------------------------------------------------------
LINQ_TOKEN = re.compile(r'\s*(?:(?P<num>-?\d+(?:\.\d+)?)|(?P<str>"(?:[^"\\]|\\.)*")|'
                        r'(?P<op>==|!=|>=|<=|&&|\|\||[<>!(),])|(?P<id>[A-Za-z_][A-Za-z0-9_.]*))')


def parse_linq(domain, text):
    m = re.match(r'\s*([A-Za-z_]\w*)\s*=>', text)
    prefix = None
    if m:
        prefix = m.group(1) + '.'
        text = text[m.end():]
    toks = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        mt = LINQ_TOKEN.match(text, pos)
        if not mt or mt.end() == pos:
            raise bad(f'The LINQ filter cannot be parsed near position {pos}.')
        pos = mt.end()
        kind = mt.lastgroup
        val = mt.group(kind)
        if kind == 'num':
            toks.append(('lit', float(val)))
        elif kind == 'str':
            toks.append(('lit', json.loads(val)))
        elif kind == 'op':
            toks.append(('op', val))
        else:
            low = val.lower()
            if low in ('true', 'false'):
                toks.append(('lit', low == 'true'))
            elif low == 'null':
                toks.append(('lit', None))
            elif low in ('and', 'or', 'not'):
                toks.append(('op', {'and': '&&', 'or': '||', 'not': '!'}[low]))
            else:
                if prefix and val.startswith(prefix):
                    val = val[len(prefix):]
                toks.append(('id', val))
    i = [0]

    def peek():
        return toks[i[0]] if i[0] < len(toks) else (None, None)

    def take(kind=None, value=None):
        t = peek()
        if t[0] is None or (kind and t[0] != kind) or (value and t[1] != value):
            raise bad('The LINQ filter cannot be parsed.')
        i[0] += 1
        return t

    def field_getter(name):
        ftype = field_type(domain, name)
        if ftype is None:
            raise bad(f"The LINQ filter names an unknown field '{name}'.")
        num = ftype in ('key', 'int', 'num')
        return lambda row: (float(row[name]) if num and row.get(name) is not None else row.get(name))

    def operand():
        t = peek()
        if t[0] == 'lit':
            take()
            v = t[1]
            return lambda row: v
        if t[0] == 'id':
            take()
            name = t[1]
            for meth in ('Contains', 'StartsWith', 'EndsWith'):
                if name.endswith('.' + meth):
                    get = field_getter(name[:-len(meth) - 1])
                    take('op', '(')
                    arg = take('lit')[1]
                    take('op', ')')
                    fn = {'Contains': lambda a, b: b in a, 'StartsWith': lambda a, b: a.startswith(b),
                          'EndsWith': lambda a, b: a.endswith(b)}[meth]
                    return lambda row, g=get, f=fn, a=arg: (g(row) is not None and f(str(g(row)), str(a)))
            return field_getter(name)
        if t == ('op', '('):
            take()
            e = expr_or()
            take('op', ')')
            return e
        raise bad('The LINQ filter cannot be parsed.')

    def comparison():
        left = operand()
        t = peek()
        if t[0] == 'op' and t[1] in ('==', '!=', '<', '<=', '>', '>='):
            take()
            right = operand()
            op = {'==': 'eq', '!=': 'ne', '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge'}[t[1]]

            def cmp(row, l=left, r=right, o=op):
                a, b = l(row), r(row)
                if o == 'eq':
                    return a == b
                return compare(o, a, b)
            return cmp
        return left

    def unary():
        if peek() == ('op', '!'):
            take()
            inner = unary()
            return lambda row: not inner(row)
        return comparison()

    def expr_and():
        left = unary()
        while peek() == ('op', '&&'):
            take()
            right = unary()
            left = (lambda l, r: (lambda row: bool(l(row)) and bool(r(row))))(left, right)
        return left

    def expr_or():
        left = expr_and()
        while peek() == ('op', '||'):
            take()
            right = expr_and()
            left = (lambda l, r: (lambda row: bool(l(row)) or bool(r(row))))(left, right)
        return left

    if not toks:
        raise bad('The LINQ filter is empty.')
    e = expr_or()
    if i[0] != len(toks):
        raise bad('The LINQ filter cannot be parsed (trailing text).')
    return lambda row: bool(e(row))


# --------------------------------------------------------------------------------------------
# Columns
# --------------------------------------------------------------------------------------------
def parse_columns(text):
    cols = []
    for item in text.split(','):
        item = item.strip()
        if not item:
            continue
        m = re.fullmatch(r'(.+?)\s+as\s+(\S+)', item, flags=re.IGNORECASE)
        if m:
            cols.append((m.group(1).strip(), m.group(2).strip()))
        else:
            cols.append((item, item))
    return cols


class Projector:
    """Validates a columns list for a domain and builds each record's output."""

    def __init__(self, domain, columns_text, resolve, user):
        self.domain = domain
        self.resolve = resolve
        self.user = user
        schema = SCHEMAS[domain]
        if columns_text is None or columns_text.strip() == '':
            self.cols = [(f, f) for f in scalar_fields(domain)]
        else:
            self.cols = parse_columns(columns_text)
        self.getters = []
        for name, alias in self.cols:
            self.getters.append((alias, self._getter(name, schema)))

    def _getter(self, name, schema):
        d = self.domain
        if name in schema:
            t = schema[name]
            if not isinstance(t, tuple):
                return lambda rec, row: row.get(name)
            if t[0] == 'assoc':
                if not self.resolve:
                    return lambda rec, row: None
                target, keyf = t[1], t[2]

                def display(rec, row, target=target, keyf=keyf):
                    ref = rec.get(keyf)
                    if ref is None:
                        return None
                    other = STORE.get(target, ref)
                    if other is None or other.get('_deleted'):
                        return None
                    return other.get(DISPLAY[target])
                return display
            return lambda rec, row: None  # bare coded field: not stored natively
        if d == 'File' and name == 'Contents':
            return lambda rec, row: rec.get('_contents')
        if d == 'File' and name == 'DownloadURL':
            if STORE.setting('Service.EnableEnhancedSessionIDSecurity') != 'true':
                raise HttpError(500, 'Object reference not set to an instance of an object.',
                                body='Object reference not set to an instance of an object.')
            restricted = self.user.download_restricted()

            def url(rec, row):
                if rec.get('ExternalFileRepositoryID') is not None or rec.get('ExternalDirectURL'):
                    return ''
                if restricted:
                    return ''
                return f"Document/DownloadFile.aspx?FileID={rec['FileID']}"
            return url
        if '.' in name:
            base, prop = name.split('.', 1)
            t = schema.get(base)
            if isinstance(t, tuple) and t[0] == 'assoc':
                target, keyf = t[1], t[2]
                if field_type(target, prop) is None:
                    raise bad(f"The column '{name}' is not valid: '{prop}' is not a field of '{target}'.")

                def prop_get(rec, row, target=target, keyf=keyf, prop=prop):
                    ref = rec.get(keyf)
                    if ref is None:
                        return None
                    other = STORE.get(target, ref)
                    if other is None or other.get('_deleted'):
                        return None
                    return other.get(prop)
                return prop_get
            if isinstance(t, tuple) and t[0] == 'coded':
                clist = CODE_LISTS[t[1]]
                if prop == 'Code':
                    return lambda rec, row, base=base: rec.get('_codes', {}).get(base)
                if prop == 'Description':
                    return lambda rec, row, base=base: clist.get(rec.get('_codes', {}).get(base))
                raise bad(f"The column '{name}' is not valid: a coded field has Code and Description.")
            raise bad(f"The column '{name}' is not valid for the domain '{d}'.")
        raise bad(f"The column '{name}' is not valid for the domain '{d}'.")

    def project(self, rec, row):
        out = {}
        for alias, g in self.getters:
            out[alias] = g(rec, row)
        return out


def full_row(domain, rec, linked_files=None):
    row = {f: rec.get(f) for f in scalar_fields(domain)}
    if domain == 'File':
        if linked_files is None:
            linked_files = STORE.linked_file_ids()
        row['IsUnlinked'] = rec['FileID'] not in linked_files
    return row


def visible(domain, rec):
    return not rec.get('_deleted')


# --------------------------------------------------------------------------------------------
# Sorting and paging
# --------------------------------------------------------------------------------------------
def parse_sort(domain, text):
    items = []
    for part in text.split(','):
        part = part.strip()
        if not part:
            continue
        bits = part.split()
        if len(bits) > 2 or (len(bits) == 2 and bits[1].lower() not in ('asc', 'desc')):
            raise bad(f"The sort item '{part}' is not of the form '<column> [asc|desc]'.")
        field = bits[0]
        if field_type(domain, field) is None:
            raise bad(f"The sort column '{field}' is not a field of the domain '{domain}'.")
        items.append((field, len(bits) == 2 and bits[1].lower() == 'desc'))
    return items


def sort_rows(pairs, items):
    for field, desc in reversed(items):
        def key(p, field=field):
            v = p[1].get(field)
            return (0, 0) if v is None else (1, v)
        pairs.sort(key=key, reverse=desc)
    return pairs


def run_query(domain, q, user, records, linked_files=None, allow_suppress=True):
    proj = Projector(domain, q.get('columns'), parse_bool(q, 'resolveAssociationNames'), user)
    skip = parse_int(q, 'skip', 0, minimum=0)
    take = parse_int(q, 'take', 30, minimum=1)
    take = min(take, 100)
    suppress = parse_bool(q, 'excludeEmptyColumns')
    total = parse_bool(q, 'includeTotalCount')
    preds = []
    if q.get('filter', '').strip():
        preds.append(parse_filter(domain, q['filter']))
    if q.get('linqFilter', '').strip():
        preds.append(parse_linq(domain, q['linqFilter']))
    sort_items = parse_sort(domain, q['sort']) if q.get('sort', '').strip() else []
    pairs = []
    for rec in records:
        if not visible(domain, rec):
            continue
        row = full_row(domain, rec, linked_files)
        if all(p(row) for p in preds):
            pairs.append((rec, row))
    pairs.sort(key=lambda p: p[0][KEY[domain]])
    sort_rows(pairs, sort_items)
    count = len(pairs)
    page = pairs[skip:skip + take]
    out = [proj.project(rec, row) for rec, row in page]
    if suppress and allow_suppress and out:
        empty = [k for k in out[0] if all(r.get(k) is None for r in out)]
        for r in out:
            for k in empty:
                del r[k]
    body = {'List': out}
    if total:
        body['TotalCount'] = count
    return body


# --------------------------------------------------------------------------------------------
# Domain helpers
# --------------------------------------------------------------------------------------------
def require_domain(name):
    if name not in SCHEMAS:
        raise not_found(f"The domain '{name}' was not found.")
    return name


def parse_id(text):
    if not re.fullmatch(r'\d{1,18}', text):
        raise bad(f"The record ID '{text}' is not an integer.")
    return int(text)


def load_visible(domain, rid):
    rec = STORE.get(domain, rid)
    if rec is None or rec.get('_deleted'):
        return None
    return rec


# --------------------------------------------------------------------------------------------
# API handlers
# --------------------------------------------------------------------------------------------
def api_domains(user, q):
    out = []
    for did, name, sing, plur in DOMAINS:
        if user.has(name, 'View'):
            out.append({'DomainID': did, 'Name': name, 'DisplayNameSingular': sing, 'DisplayNamePlural': plur})
    return 200, {'List': out}


def api_get_record(user, domain, rid_text, q):
    require_domain(domain)
    user.require(domain, 'View')
    rid = parse_id(rid_text)
    proj = Projector(domain, q.get('columns'), parse_bool(q, 'resolveAssociationNames'), user)
    rec = load_visible(domain, rid)
    if rec is None:
        raise not_found(f"No {domain} record with ID {rid} was found.")
    return 200, {'Record': proj.project(rec, full_row(domain, rec)), 'Domain': domain, 'Id': rid}


def api_query(user, domain, q):
    require_domain(domain)
    user.require(domain, 'View')
    records = STORE.all(domain)
    linked = STORE.linked_file_ids() if domain == 'File' else None
    return 200, run_query(domain, q, user, records, linked)


def api_attached_files(user, domain, rid_text, q):
    require_domain(domain)
    user.require(domain, 'View')
    user.require('File', 'View')
    rid = parse_id(rid_text)
    if load_visible(domain, rid) is None:
        raise not_found(f"No {domain} record with ID {rid} was found.")
    ids = [r[0] for r in STORE.db.execute(
        "SELECT DISTINCT ChildID FROM links WHERE ParentDomain=? AND ParentID=? AND ChildDomain='File'",
        (domain, rid))]
    files = [f for f in (STORE.get('File', i) for i in ids) if f is not None]
    return 200, run_query('File', q, user, files, set(ids) | STORE.linked_file_ids())


# ---- links ----------------------------------------------------------------------------------
def resolve_record(domain, rid, key, match_field, side):
    """Returns the record ID, raising 400/404. rid wins over key."""
    if rid is not None:
        if isinstance(rid, bool) or not isinstance(rid, int):
            if isinstance(rid, str) and re.fullmatch(r'\d+', rid.strip()):
                rid = int(rid)
            else:
                raise bad(f'{side}RecordID must be an integer.')
        if load_visible(domain, rid) is None:
            raise not_found(f"No {domain} record with ID {rid} was found.")
        return rid
    if match_field is None or key is None or (isinstance(key, str) and key == ''):
        raise bad(f'The {side.lower()} record is not identified: give {side}RecordID, or {side}RecordKey '
                  f'with {side}RecordMatchField.')
    ftype = field_type(domain, match_field) if isinstance(match_field, str) else None
    if ftype is None:
        if isinstance(match_field, str) and match_field in SCHEMAS[domain]:
            raise bad(f"The field '{match_field}' cannot be used as a match field: only text or numeric fields "
                      f"are accepted.")
        raise bad(f"The match field '{match_field}' is not a field of the domain '{domain}'.")
    if ftype not in ('text', 'int', 'num', 'key'):
        raise bad(f"The field '{match_field}' cannot be used as a match field: only text or numeric fields are "
                  f"accepted.")
    if ftype == 'text':
        want = str(key)
        match = lambda v: v is not None and str(v) == want
    else:
        try:
            want = float(key)
        except (TypeError, ValueError):
            raise bad(f"The key '{key}' is not a number for the numeric match field '{match_field}'.")
        match = lambda v: v is not None and float(v) == want
    hits = [r for r in STORE.all(domain) if not r.get('_deleted') and match(r.get(match_field))]
    if not hits:
        raise not_found(f"No {domain} record has {match_field} = '{key}'.")
    if len(hits) > 1:
        raise bad(f"The key '{key}' of {match_field} matches {len(hits)} {domain} records; it must identify one.")
    return hits[0][KEY[domain]]


def norm_relationship(value):
    if value is None or (isinstance(value, str) and value.strip() == ''):
        return None
    if not isinstance(value, str):
        raise bad('Relationship must be a Contact Type code (a string).')
    v = value.strip()
    codes = CODE_LISTS['ContactType']
    if v in codes:
        return v
    for c, desc in codes.items():
        if desc.lower() == v.lower():
            return c
    raise bad(f"The relationship '{value}' is not a Contact Type code.")


def link_body(body, upsert):
    if not isinstance(body, dict):
        raise bad('The body must be a JSON object.')
    pd, cd = body.get('ParentDomain'), body.get('ChildDomain')
    if not isinstance(pd, str) or not pd:
        raise bad('ParentDomain is required.')
    if not isinstance(cd, str) or not cd:
        raise bad('ChildDomain is required.')
    if pd not in SCHEMAS:
        raise bad(f"The parent domain '{pd}' was not found.")
    if cd not in SCHEMAS:
        raise bad(f"The child domain '{cd}' was not found.")
    if cd not in LINKABLE:
        raise bad(f"The domain '{cd}' is not a linkable domain (Contact or File).")
    rel = norm_relationship(body.get('Relationship'))
    new_rel = norm_relationship(body.get('NewRelationship')) if upsert else None
    if cd != 'Contact' and (rel is not None or new_rel is not None):
        raise bad('A relationship applies only to Contact children.')
    return pd, cd, rel, new_rel


def link_perm(user, pd, cd, upsert):
    need = {'Contact': ('AttachContacts' if upsert else 'DetachContacts'),
            'File': ('AttachFiles' if upsert else 'ModifyFiles')}.get(cd, 'Edit')
    user.require(pd, need)
    user.require(cd, 'View')


def api_link_upsert(user, body):
    pd, cd, rel, new_rel = link_body(body, True)
    link_perm(user, pd, cd, True)
    pid = resolve_record(pd, body.get('ParentRecordID'), body.get('ParentRecordKey'),
                         body.get('ParentRecordMatchField'), 'Parent')
    cid = resolve_record(cd, body.get('ChildRecordID'), body.get('ChildRecordKey'),
                         body.get('ChildRecordMatchField'), 'Child')
    with STORE.lock:
        db = STORE.db
        ident = rel if rel is not None else None
        row = db.execute('SELECT LinkID FROM links WHERE ParentDomain=? AND ParentID=? AND ChildDomain=? AND ChildID=? '
                         'AND ContactTypeID IS ?', (pd, pid, cd, cid, ident)).fetchone()
        if row:
            link_id = row[0]
            msg = 'The link was updated.'
            if new_rel is not None and new_rel != ident:
                other = db.execute('SELECT LinkID FROM links WHERE ParentDomain=? AND ParentID=? AND ChildDomain=? '
                                   'AND ChildID=? AND ContactTypeID IS ?', (pd, pid, cd, cid, new_rel)).fetchone()
                if other:  # the target relationship exists already: one link remains
                    db.execute('DELETE FROM links WHERE LinkID=?', (link_id,))
                    link_id = other[0]
                else:
                    db.execute('UPDATE links SET ContactTypeID=? WHERE LinkID=?', (new_rel, link_id))
        else:
            create_rel = rel if rel is not None else new_rel
            existing = db.execute('SELECT LinkID FROM links WHERE ParentDomain=? AND ParentID=? AND ChildDomain=? '
                                  'AND ChildID=? AND ContactTypeID IS ?', (pd, pid, cd, cid, create_rel)).fetchone()
            if existing:
                link_id = existing[0]
                msg = 'The link was updated.'
            else:
                cur = db.execute('INSERT INTO links (ParentDomain, ParentID, ChildDomain, ChildID, ContactTypeID) '
                                 'VALUES (?,?,?,?,?)', (pd, pid, cd, cid, create_rel))
                link_id = cur.lastrowid
                msg = 'The link was created.'
    return 200, {'IsSuccessful': True, 'LinkID': link_id, 'ParentRecordID': pid, 'ChildRecordID': cid,
                 'Message': msg}


def api_link_remove(user, body):
    pd, cd, rel, _ = link_body(body, False)
    link_perm(user, pd, cd, False)
    pid = resolve_record(pd, body.get('ParentRecordID'), body.get('ParentRecordKey'),
                         body.get('ParentRecordMatchField'), 'Parent')
    cid = resolve_record(cd, body.get('ChildRecordID'), body.get('ChildRecordKey'),
                         body.get('ChildRecordMatchField'), 'Child')
    with STORE.lock:
        sql = 'DELETE FROM links WHERE ParentDomain=? AND ParentID=? AND ChildDomain=? AND ChildID=?'
        args = [pd, pid, cd, cid]
        if rel is not None:
            sql += ' AND ContactTypeID=?'
            args.append(rel)
        n = STORE.db.execute(sql, args).rowcount
    if n == 0:
        return 200, {'IsSuccessful': False, 'RemovedCount': 0,
                     'Message': 'No link matched the parent, child and relationship: nothing was removed.'}
    return 200, {'IsSuccessful': True, 'RemovedCount': n, 'Message': f'{n} link(s) removed.'}


def api_link_query(user, q):
    pd, cd = q.get('parentDomain'), q.get('childDomain')
    if not pd and not cd:
        raise bad('Give parentDomain or childDomain (or both).')
    for d in (pd, cd):
        if d and d not in SCHEMAS:
            raise not_found(f"The domain '{d}' was not found.")
    if pd:
        user.require(pd, 'View')
    if cd:
        user.require(cd, 'View')
    cols = parse_columns(q['columns']) if q.get('columns', '').strip() else [(c, c) for c in LINK_COLUMNS]
    for name, _ in cols:
        if name not in LINK_COLUMNS:
            raise bad(f"The column '{name}' is not a link column ({', '.join(LINK_COLUMNS)}).")
    where, args = [], []
    empty = False
    for side, dom in (('parent', pd), ('child', cd)):
        rid = q.get(side + 'RecordID')
        key = q.get(side + 'RecordKey')
        mf = q.get(side + 'RecordMatchField')
        if rid is not None and rid != '':
            if not re.fullmatch(r'\d+', rid.strip()):
                raise bad(f'{side}RecordID must be an integer.')
            where.append(('ParentID' if side == 'parent' else 'ChildID') + '=?')
            args.append(int(rid))
        elif key is not None or mf is not None:
            if not dom:
                raise bad(f'{side}RecordKey needs {side}Domain.')
            try:
                found = resolve_record(dom, None, key, mf, side.capitalize())
            except HttpError as e:
                if e.status == 404:
                    empty = True
                    found = None
                else:
                    raise
            where.append(('ParentID' if side == 'parent' else 'ChildID') + '=?')
            args.append(found)
    if pd:
        where.append('ParentDomain=?')
        args.append(pd)
    if cd:
        where.append('ChildDomain=?')
        args.append(cd)
    if q.get('relationship'):
        where.append('ContactTypeID=?')
        args.append(norm_relationship(q['relationship']))
    rows = [] if empty else STORE.db.execute(
        'SELECT LinkID, ParentDomain, ParentID, ChildDomain, ChildID, ContactTypeID FROM links WHERE '
        + ' AND '.join(where) + ' ORDER BY LinkID', args).fetchall()
    out = []
    for r in rows:
        # spec 5.4: link operations check the user's permissions on the parent domain, and the user must hold
        # View on the child domain: a link whose parent or child domain the user may not view is not shown
        if not user.has(r[1], 'View') or not user.has(r[3], 'View'):
            continue
        full = {'LinkID': r[0], 'ParentDomainID': DOMAIN_ID[r[1]], 'ParentID': r[2], 'ChildDomainID': DOMAIN_ID[r[3]],
                'ChildID': r[4], 'ContactTypeID': r[5]}
        out.append({alias: full[name] for name, alias in cols})
    return 200, {'List': out}


# ---- proposals ------------------------------------------------------------------------------
def load_proposal(user, pid_text, perm):
    user.require('Proposal', perm)
    pid = parse_id(pid_text)
    p = STORE.get('Proposal', pid)
    if p is None:
        raise not_found(f'No Proposal with ID# {pid} was found.')
    return p


def modifiable(p):
    return (p.get('StatusCode') not in ('B', 'R', '0') and not p.get('IsProposalSetBound')
            and not p.get('HasPendingExpiryChange'))


def bind_status(p):
    st = p.get('_bindStatus', 'NotBound')
    if st == 'Bound':
        return {'ProposalID': p['ProposalID'], 'Status': 'Bound', 'ErrorMessage': None, 'PolicyID': p['PolicyID'],
                'MemberID': p['MemberID'], 'PolicyNumber': p['_policyNumber'], 'MemberName': p['_memberName'],
                'BoundDateUTC': p['_boundDateUTC']}
    return {'ProposalID': p['ProposalID'], 'Status': st, 'ErrorMessage': p.get('_bindError') if st == 'Error' else None,
            'PolicyID': None, 'MemberID': None, 'PolicyNumber': None, 'MemberName': None, 'BoundDateUTC': None}


def bind_check(p):
    """Returns an error message, or None when the proposal can be bound."""
    if p.get('_bindStatus') == 'Bound' or not modifiable(p):
        return 'Cannot bind or issue this proposal record.'
    if p.get('RatingStatusCode') != 'C':
        return 'Rating must be completed before binding.'
    if p.get('MemberID') is None:
        return 'MemberID is null on Proposal record'
    return None


def do_bind(p):
    member = STORE.get('Member', p['MemberID'])
    policy_id = STORE.new_id()
    number = f'POL-{policy_id:07d}'
    STORE.insert('Policy', {'PolicyNumber': number, 'MemberID': p['MemberID'], 'ProposalID': p['ProposalID'],
                            'EffectiveDate': dt.date.today().isoformat()}, rid=policy_id)
    p['PolicyID'] = policy_id
    p['StatusCode'] = 'B'
    p['_bindStatus'] = 'Bound'
    p['_bindError'] = None
    p['_policyNumber'] = number
    p['_memberName'] = (member or {}).get('MemberName') or p.get('ApplicantName')
    p['_boundDateUTC'] = now_utc()
    STORE.put('Proposal', p)


def background_bind(pid, delay):
    time.sleep(delay)
    with STORE.lock:
        p = STORE.get('Proposal', pid)
        if p is None or p.get('_bindStatus') == 'Bound':
            return
        err = bind_check(p)
        if err:
            p['_bindStatus'] = 'Error'
            p['_bindError'] = err
            STORE.put('Proposal', p)
        else:
            do_bind(p)


def api_bind_status(user, pid_text):
    p = load_proposal(user, pid_text, 'View')
    return 200, bind_status(p)


def api_queue_bind(user, pid_text, q):
    p = load_proposal(user, pid_text, 'Edit')
    if 'billingFrequencyCode' in q and not re.fullmatch(r'[A-Za-z0-9]{1,4}', q['billingFrequencyCode']):
        raise bad('billingFrequencyCode is not a valid code.')
    if 'billingStatus' in q and q['billingStatus'] not in ('B', 'W', 'N', 'S', 'E'):
        raise bad('billingStatus must be one of B, W, N, S, E.')
    threading.Thread(target=background_bind, args=(p['ProposalID'], random.uniform(0.2, 1.2)), daemon=True).start()
    return 200, None


def api_bind_quote(user, pid_text, q):
    with STORE.lock:
        p = load_proposal(user, pid_text, 'Edit')
        err = bind_check(p)
        if err:
            raise HttpError(500, err, body=err)
        do_bind(p)
        s = bind_status(p)
    return 200, {k: s[k] for k in ('ProposalID', 'PolicyID', 'MemberID', 'PolicyNumber', 'MemberName',
                                   'BoundDateUTC')}


def api_create_member(user, pid_text, body_raw):
    if body_raw.strip():
        try:
            b = json.loads(body_raw)
        except ValueError:
            raise bad('The body is not JSON.')
        if b not in (None, {}):
            raise bad('CreateMember takes no body: the member is built from the applicant data only; member '
                      'fields cannot be overridden or added.')
    with STORE.lock:
        p = load_proposal(user, pid_text, 'Edit')
        if p.get('MemberID') is not None:
            msg = f"A MemberID is already assigned to the Proposal record (ID# {p['ProposalID']})."
            raise HttpError(500, msg, body=msg)
        name = (p.get('ApplicantName') or '').strip()
        if not name:
            return 200, {'IsSuccessful': False, 'RecordID': 0,
                         'Message': 'The applicant data does not pass member validation: the applicant name is '
                                    'required.'}
        mid = STORE.insert('Member', {'MemberName': name, 'MemberNumber': f'M-{p["ProposalID"]}', 'IsActive': True})
        p['MemberID'] = mid
        STORE.put('Proposal', p)
    return 200, {'IsSuccessful': True, 'RecordID': mid, 'Message': None}


def result(ok, rid, order, msg):
    return {'IsSuccessful': ok, 'RecordID': rid, 'OrderNumber': order, 'Message': msg, 'Warnings': None}


def check_schedule_domain(p, domain):
    if domain not in SCHEDULES:
        raise bad(f"'{domain}' is not a valid schedule domain for Proposal with ID# {p['ProposalID']}.")


def validate_fields(domain, fields, existing=None):
    spec = SCHEDULES[domain]
    if not isinstance(fields, dict):
        return 'Fields must be an object of field name to value.'
    for k, v in fields.items():
        if k not in spec['fields']:
            return f"'{k}' is not a field that can be written on {domain}."
        t = spec['fields'][k]
        if v is None:
            continue
        if t == 'text' and not isinstance(v, (str, int, float)) or isinstance(v, bool):
            return f"The value of '{k}' must be text."
        if t == 'int' and (isinstance(v, bool) or not isinstance(v, int)):
            if not (isinstance(v, str) and re.fullmatch(r'-?\d+', v.strip())):
                return f"The value of '{k}' must be an integer."
    merged = dict(existing or {})
    merged.update(fields)
    req = merged.get(spec['required'])
    if req is None or str(req).strip() == '':
        return f"{spec['required']} is required."
    return None


def clean_fields(domain, fields):
    spec = SCHEDULES[domain]
    out = {}
    for k, v in fields.items():
        if v is None:
            out[k] = None
        elif spec['fields'][k] == 'int':
            out[k] = int(v)
        else:
            out[k] = v if isinstance(v, str) else str(v)
    return out


def find_schedule(p, domain, rid):
    if isinstance(rid, bool) or not isinstance(rid, int):
        return None
    rec = STORE.get(domain, rid)
    if rec is None or rec.get('ProposalID') != p['ProposalID'] or rec.get('_deleted'):
        return None
    return rec


def schedule_delete(p, domain, rec):
    rid = rec[KEY[domain]]
    if p.get('ProposalTypeCode') == 'E':
        rec['_deleted'] = True
        STORE.put(domain, rec)
        STORE.db.execute('INSERT INTO policy_changes (proposal_id, domain, record_id, change, at) VALUES (?,?,?,?,?)',
                         (p['ProposalID'], domain, rid, 'Deleted', now_local()))
    else:
        STORE.delete(domain, rid)
        STORE.db.execute('INSERT INTO data_entry_events (proposal_id, domain, record_id, event, at) VALUES (?,?,?,?,?)',
                         (p['ProposalID'], domain, rid, 'AfterDelete', now_local()))


def api_upsert_multi(user, pid_text, domain, q, body):
    atomic = parse_bool(q, 'isAtomic')
    if not isinstance(body, dict):
        raise bad('The body must be an object with the arrays Inserts, Updates and Deletes.')
    arrays = {}
    for name in ('Inserts', 'Updates', 'Deletes'):
        v = body.get(name)
        if v is None:
            v = []
        if not isinstance(v, list):
            raise bad(f'{name} must be an array.')
        arrays[name] = v
    n = sum(len(v) for v in arrays.values())
    if n > MAX_BULK_ITEMS:
        raise bad(f'A bulk call takes at most {MAX_BULK_ITEMS} records; this one has {n}.')
    with STORE.lock:
        p = load_proposal(user, pid_text, 'Edit')
        check_schedule_domain(p, domain)
        key = KEY[domain]
        res = {'Inserts': [], 'Updates': [], 'Deletes': []}
        if not modifiable(p):
            msg = f"Cannot modify Proposal with ID# {p['ProposalID']}."
            for i, _ in enumerate(arrays['Inserts']):
                res['Inserts'].append(result(False, 0, i, msg))
            for i, it in enumerate(arrays['Updates']):
                rid = it.get('ID') if isinstance(it, dict) and isinstance(it.get('ID'), int) else 0
                res['Updates'].append(result(False, rid, i, msg))
            for i, _ in enumerate(arrays['Deletes']):
                res['Deletes'].append(result(False, 0, i, msg))
            return 200, res
        db = STORE.db
        if atomic:
            db.execute('BEGIN')
        failed = False
        try:
            for i, it in enumerate(arrays['Inserts']):
                fields = it.get('Fields') if isinstance(it, dict) else None
                err = 'Fields is required.' if fields is None else validate_fields(domain, fields)
                if err:
                    res['Inserts'].append(result(False, 0, i, err))
                    failed = True
                    continue
                data = clean_fields(domain, fields)
                data['ProposalID'] = p['ProposalID']
                rid = STORE.insert(domain, data)
                res['Inserts'].append(result(True, rid, i, f'Inserted schedule with id {rid} successfully.'))
            for i, it in enumerate(arrays['Updates']):
                rid = it.get('ID') if isinstance(it, dict) else None
                rec = find_schedule(p, domain, rid)
                shown = rid if isinstance(rid, int) and not isinstance(rid, bool) else 0
                if rec is None:
                    res['Updates'].append(result(False, shown, i, f'No {domain} schedule with id {rid} was found on '
                                                                     f"Proposal with ID# {p['ProposalID']}."))
                    failed = True
                    continue
                fields = it.get('Fields')
                err = 'Fields is required.' if fields is None else validate_fields(domain, fields, rec)
                if err:
                    res['Updates'].append(result(False, shown, i, err))
                    failed = True
                    continue
                rec.update(clean_fields(domain, fields))
                STORE.put(domain, rec)
                res['Updates'].append(result(True, rid, i, f'Updated schedule with id {rid} successfully.'))
            for i, it in enumerate(arrays['Deletes']):
                rid = it.get('ID') if isinstance(it, dict) else None
                rec = find_schedule(p, domain, rid)
                if rec is None:
                    res['Deletes'].append(result(False, 0, i, f'No {domain} schedule with id {rid} was found on '
                                                                 f"Proposal with ID# {p['ProposalID']}."))
                    failed = True
                    continue
                schedule_delete(p, domain, rec)
                res['Deletes'].append(result(True, rid, i, f'Deleted schedule with id {rid} successfully.'))
        except Exception:
            if atomic:
                db.execute('ROLLBACK')
            raise
        if atomic:
            if failed:
                db.execute('ROLLBACK')
                for name in res:
                    res[name] = [r for r in res[name] if not r['IsSuccessful']]
                    for r in res[name]:
                        if name == 'Inserts':
                            r['RecordID'] = 0
            else:
                db.execute('COMMIT')
        # keep the ID sequence past anything used, even when rolled back
        _ = key
    return 200, res


def api_schedule_delete(user, pid_text, domain, sid_text):
    with STORE.lock:
        p = load_proposal(user, pid_text, 'Edit')
        check_schedule_domain(p, domain)
        sid = parse_id(sid_text)
        if not modifiable(p):
            return 200, result(False, 0, None, f"Cannot modify Proposal with ID# {p['ProposalID']}.")
        rec = find_schedule(p, domain, sid)
        if rec is None:
            return 200, result(False, 0, None, f"No {domain} schedule with id {sid} was found on Proposal with ID# "
                                               f"{p['ProposalID']}.")
        schedule_delete(p, domain, rec)
        return 200, result(True, sid, None, f'Deleted schedule with id {sid} successfully.')


def api_reinstate(user, pid_text, domain, sid_text):
    with STORE.lock:
        p = load_proposal(user, pid_text, 'Edit')
        check_schedule_domain(p, domain)
        sid = parse_id(sid_text)
        if not modifiable(p):
            return 200, result(False, 0, None, f"Cannot modify Proposal with ID# {p['ProposalID']}.")
        if p.get('ProposalTypeCode') != 'E':
            return 200, result(False, 0, None, 'Reinstate applies only to schedules of Endorsement proposals.')
        rec = STORE.get(domain, sid)
        if rec is None or rec.get('ProposalID') != p['ProposalID'] or not rec.get('_deleted'):
            return 200, result(False, 0, None, f'No deleted {domain} schedule with id {sid} was found on Proposal '
                                               f"with ID# {p['ProposalID']}.")
        rec.pop('_deleted', None)
        STORE.put(domain, rec)
        STORE.db.execute('INSERT INTO policy_changes (proposal_id, domain, record_id, change, at) VALUES (?,?,?,?,?)',
                         (p['ProposalID'], domain, sid, 'Reinstated', now_local()))
        return 200, result(True, sid, None, f'Reinstated schedule with id {sid} successfully.')


def api_authenticate(body):
    if not isinstance(body, dict):
        raise bad('The body must be a JSON object with Account, User, Password and ClientName.')
    user, pw = body.get('User'), body.get('Password')
    row = STORE.db.execute('SELECT id, password, tag FROM users WHERE name=?', (user,)).fetchone()
    if not row or not isinstance(pw, str) or not secrets.compare_digest(row[1], pw):
        raise HttpError(401, 'The account, user or password is not valid.')
    exp = time.time() + TOKEN_LIFETIME
    token = issue_token(row[0], row[2], exp)
    return 200, {'Token': token,
                 'Expires': dt.datetime.fromtimestamp(exp, dt.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')}


# --------------------------------------------------------------------------------------------
# Provider states (test harness; Pact v3 state change)
# --------------------------------------------------------------------------------------------
def b64decode(text, what='contentsBase64'):
    if not isinstance(text, str):
        raise BadParams(f'{what} must be a base64 string.')
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise BadParams(f'{what} is not valid base64.')


def make_file(tag, file_name, contents_b64, description=None, kind='internal', source_type='U', touched=False,
              uid=1):
    raw = b64decode(contents_b64)
    ext = os.path.splitext(file_name)[1].lower()
    # spec 2.2 types Description as `string` (2.4 writes `string or null` where null is allowed): never null
    data = {'FileName': file_name, 'Description': description if description is not None else '', 'MimeType': ext, 'FileSize': len(raw),
            'EntryDate': now_local(), 'EntryUserID': uid, 'ModifiedDate': None, 'ModifiedUserID': None,
            'DownloadedDate': None, 'DownloadedUserID': None, 'DocumentStatusID': None, 'SourceType': source_type,
            'UnlinkedAccessMode': None, 'ExternalFileRepositoryID': None, 'ExternalDirectURL': None,
            '_contents': base64.b64encode(raw).decode('ascii')}
    if touched:
        data.update({'ModifiedDate': now_local(), 'ModifiedUserID': uid, 'DownloadedDate': now_local(),
                     'DownloadedUserID': uid})
    if kind == 'externalDirectURL':
        data['ExternalDirectURL'] = f'https://files.example.test/{tag}/{file_name}'
    elif kind == 'externalRepository':
        data['ExternalFileRepositoryID'] = 7
    return STORE.insert('File', data, tag)


def add_link(tag, pd, pid, cd, cid, rel=None):
    STORE.db.execute('INSERT INTO links (ParentDomain, ParentID, ChildDomain, ChildID, ContactTypeID, tag) '
                     'VALUES (?,?,?,?,?,?)', (pd, pid, cd, cid, rel, tag))


def make_record(domain, tag, rid=None, extra=None):
    """A plain record of any domain, with its display/match text filled."""
    data = {f: None for f in scalar_fields(domain)}
    text_field = MATCH_FIELDS[domain][0]
    short = tag[-24:]
    data[text_field] = f'{domain.split(".")[-1][:3].upper()}-{short}-{secrets.token_hex(3)}'
    if domain == 'Contact':
        data.update({'Name': f'Contact {short}', 'IsActive': True})
    if domain == 'Member':
        data.update({'MemberName': f'Member {short}', 'IsActive': True})
    if domain == 'Proposal':
        data.update({'ProposalTypeCode': 'N', 'StatusCode': 'O', 'RatingStatusCode': 'Q'})
    if domain == 'File':
        data.update({'MimeType': '.txt', 'FileSize': 0, 'EntryDate': now_local(), 'SourceType': 'U',
                     'Description': '', '_contents': ''})
        data['FileName'] = data['FileName'] + '.txt'
    if extra:
        data.update(extra)
    return STORE.insert(domain, data, tag, rid=rid)


def st_user(p, tag):
    grants = p.get('grants')
    if grants is None:
        grants = {d: ADMIN_PERMS for d in SCHEMAS}
    if not isinstance(grants, dict):
        raise BadParams('grants must be an object of domain name to permission list.')
    for d, perms in grants.items():
        if not isinstance(perms, list) or any(x not in PERMISSIONS for x in perms):
            raise BadParams(f'grants of {d}: unknown permission.')
    uid = STORE.new_id()
    name = f'user-{tag}'
    password = secrets.token_urlsafe(12)
    STORE.db.execute('INSERT INTO users VALUES (?,?,?,?)', (uid, name, password, tag))
    for d, perms in grants.items():
        for x in perms:
            STORE.db.execute('INSERT INTO perms VALUES (?,?,?)', (uid, d, x))
    return {'token': issue_token(uid, tag), 'userId': uid, 'account': 'provider-states', 'user': name,
            'password': password}


def st_expired_token(p, tag):
    uid = STORE.new_id()
    STORE.db.execute('INSERT INTO users VALUES (?,?,?,?)', (uid, f'user-{tag}', secrets.token_urlsafe(12), tag))
    for d in SCHEMAS:
        for x in ADMIN_PERMS:
            STORE.db.execute('INSERT INTO perms VALUES (?,?,?)', (uid, d, x))
    return {'token': issue_token(uid, tag, time.time() - 3600)}


ASSOC_DOMAINS = {
    'Claim': dict(keyField='ClaimID', textField='ClaimNumber', numberField='ReserveAmount', nullField='Notes',
                  codedField='Custom2Code', code='PR'),
    'Custom.Inspection': dict(keyField='InspectionID', textField='InspectionNumber', numberField='Score',
                              nullField='Notes', codedField='InspectionTypeCode', code='RT'),
}


def st_record_with_associations(p, tag):
    domain = p.get('domain', 'Claim')
    if domain not in ASSOC_DOMAINS:
        raise BadParams(f'a record with associations: the domain {domain} is not supported (Claim, '
                        f'Custom.Inspection).')
    a = ASSOC_DOMAINS[domain]
    loc_name = f'Main Street Warehouse {tag[-16:]}'
    loc = STORE.insert('Location', {'LocationName': loc_name, 'Address1': '1 Main Street', 'City': 'Portland',
                                    'StateCode': 'OR', 'ZipCode': '97201', 'IsPrimary': True}, tag)
    text_value = f'A-{tag}'
    data = {f: None for f in scalar_fields(domain)}
    data.update({a['textField']: text_value, a['numberField']: 2500.5, 'LocationID': loc,
                 '_codes': {a['codedField']: a['code']}})
    rid = STORE.insert(domain, data, tag)
    clist = CODE_LISTS[SCHEMAS[domain][a['codedField']][1]]
    return {'domain': domain, 'id': rid, 'keyField': a['keyField'], 'textField': a['textField'],
            'textValue': text_value, 'numberField': a['numberField'], 'numberValue': 2500.5,
            'nullField': a['nullField'], 'associationField': 'Location', 'associationKeyField': 'LocationID',
            'associatedDomain': 'Location', 'associatedId': loc, 'associatedDisplay': loc_name,
            'associatedProperty': 'City', 'associatedPropertyValue': 'Portland', 'codedField': a['codedField'],
            'codedCode': a['code'], 'codedDescription': clist[a['code']]}


def st_missing_association(p, tag):
    domain = p.get('domain', 'Claim')
    if domain not in ASSOC_DOMAINS:
        raise BadParams(f'a record with a missing association: the domain {domain} is not supported.')
    gone = STORE.new_id()  # a Location ID that was issued and whose record no longer exists
    data = {f: None for f in scalar_fields(domain)}
    data.update({ASSOC_DOMAINS[domain]['textField']: f'M-{tag}', 'LocationID': gone})
    rid = STORE.insert(domain, data, tag)
    return {'domain': domain, 'id': rid, 'associationField': 'Location', 'associationKeyField': 'LocationID'}


RECORDS_DOMAINS = {
    # sortField, filterField, allNullField, sometimesNullField, groupField, numberField, textField
    'Claim': ('ClaimNumber', 'ClaimantName', 'Notes', 'ReserveAmount', 'Status', 'PaidAmount', 'Description'),
    'Custom.Inspection': ('InspectionNumber', 'Inspector', 'Notes', 'Score', None, None, None),
    'File': ('Description', 'FileName', 'DownloadedUserID', 'DocumentStatusID', None, None, None),
}


def st_records(p, tag):
    domain = p.get('domain', 'Claim')
    if domain not in RECORDS_DOMAINS:
        raise BadParams(f'records: the domain {domain} is not supported (Claim, Custom.Inspection, File).')
    sort_f, filt_f, null_f, sparse_f, group_f, num_f, text_f = RECORDS_DOMAINS[domain]
    n = p.get('count')
    if not isinstance(n, int) or isinstance(n, bool) or n < 1 or n > 150:
        raise BadParams('records: count must be an integer from 1 to 150.')
    ranks = p.get('sortRanks')
    if ranks is None:
        ranks = list(range(n))
    if not isinstance(ranks, list) or sorted(ranks) != list(range(n)):
        raise BadParams('records: sortRanks must be a permutation of 0 .. count-1.')
    sparse = p.get('sparseAt', 0)
    if not isinstance(sparse, int) or not 0 <= sparse < n:
        raise BadParams('records: sparseAt is out of range.')
    numbers, texts = p.get('numbers'), p.get('texts')
    if (numbers is not None or texts is not None) and num_f is None:
        raise BadParams(f'records: numbers and texts are not supported for the domain {domain}.')
    if numbers is not None and (not isinstance(numbers, list) or len(numbers) != n or any(
            x is not None and (isinstance(x, bool) or not isinstance(x, (int, float))) for x in numbers)):
        raise BadParams('records: numbers must hold count numbers or nulls.')
    if texts is not None and (not isinstance(texts, list) or len(texts) != n or any(
            x is not None and not isinstance(x, str) for x in texts)):
        raise BadParams('records: texts must hold count strings or nulls.')
    filter_value = f'cf-{tag}'
    if domain == 'File':
        filter_value = f'cf-{tag}.txt'
    ids = []
    for i in range(n):
        sort_value = f'CF-{tag}-{ranks[i]:04d}'
        if domain == 'File':
            rid = make_file(tag, filter_value, base64.b64encode(f'record {i}'.encode()).decode(), sort_value)
            rec = STORE.get('File', rid)
            if i == sparse:
                rec[sparse_f] = 1
            STORE.put('File', rec)
            ids.append(rid)
            continue
        data = {f: None for f in scalar_fields(domain)}
        data[sort_f] = sort_value
        data[filt_f] = filter_value
        data[sparse_f] = 100 if i == sparse else None
        if group_f:
            data[group_f] = f'G{2 - ranks[i] % 3}'
        if numbers is not None:
            data[num_f] = numbers[i]
        if texts is not None:
            data[text_f] = texts[i]
        ids.append(STORE.insert(domain, data, tag))
    out = {'domain': domain, 'ids': ids, 'filter': f'{filt_f}:eq:{filter_value}', 'sortField': sort_f,
           'allNullField': null_f, 'sometimesNullField': sparse_f}
    if n >= 3:
        sel = [ids[i] for i in range(n) if i % 2 == 1 and i < n - 1]
        out['linqFilter'] = ' || '.join(f'{KEY[domain]} == {x}' for x in sel)
    if group_f and texts is None:
        out['groupField'] = group_f
    elif group_f:
        out['groupField'] = group_f
    if 'sortRanks' in p:
        out['sortRanks'] = ranks
    if 'sparseAt' in p:
        out['sparseAt'] = sparse
    if numbers is not None:
        out['numberField'] = num_f
        out['numbers'] = numbers
    if texts is not None:
        out['textField'] = text_f
        out['texts'] = texts
        out['textFilters'] = [None if t is None or '&&' in t else f'{filt_f}:eq:{filter_value}&&{text_f}:eq:{t}'
                              for t in texts]
    return out


def st_file(p, tag):
    kind = p.get('kind')
    if kind not in ('internal', 'externalDirectURL', 'externalRepository'):
        raise BadParams('a file: kind must be internal, externalDirectURL or externalRepository.')
    fname = p.get('fileName')
    if not isinstance(fname, str) or not fname:
        raise BadParams('a file: fileName is required.')
    linked = p.get('linked')
    if not isinstance(linked, bool):
        raise BadParams('a file: linked must be a boolean.')
    touched = bool(p.get('touched', False))
    fid = make_file(tag, fname, p.get('contentsBase64'), p.get('description'), kind, p.get('sourceType', 'U'),
                    touched)
    rec = STORE.get('File', fid)
    out = {'fileId': fid, 'fileName': fname, 'mimeType': rec['MimeType'], 'fileSize': rec['FileSize']}
    if 'touched' in p:
        out['touched'] = touched
    if linked:
        pdom = p.get('parentDomain', 'Claim')
        if pdom not in SCHEMAS:
            raise CannotExist(f'There is no domain {pdom} here, so no record of it can be a parent.')
        pid = make_record(pdom, tag)
        add_link(tag, pdom, pid, 'File', fid)
        out['parentDomain'] = pdom
        out['parentId'] = pid
    elif 'parentDomain' in p:
        raise BadParams('a file: parentDomain needs linked: true.')
    return out


def st_record_with_files(p, tag):
    domain = p.get('domain', 'Claim')
    if domain not in SCHEMAS:
        raise BadParams(f'a record with files: unknown domain {domain}.')
    files = p.get('files')
    if not isinstance(files, list):
        raise BadParams('a record with files: files must be an array.')
    rid = make_record(domain, tag)
    file_ids = []
    for f in files:
        fid = make_file(tag, f.get('fileName'), f.get('contentsBase64'))
        add_link(tag, domain, rid, 'File', fid)
        file_ids.append(fid)
    out = {'domain': domain, 'id': rid, 'fileIds': file_ids}
    twin = p.get('twinDomain')
    if twin is not None:
        if twin not in SCHEMAS or twin == domain:
            raise BadParams(f'a record with files: twinDomain {twin} is not a domain other than {domain}.')
        make_record(twin, tag, rid=rid)
        twin_ids = []
        for f in p.get('twinFiles') or []:
            fid = make_file(tag, f.get('fileName'), f.get('contentsBase64'))
            add_link(tag, twin, rid, 'File', fid)
            twin_ids.append(fid)
        out['twinDomain'] = twin
        out['twinFileIds'] = twin_ids
    return out


def st_contact(p, tag):
    rid = STORE.new_id()
    code = 700000 + rid
    email = f'c{rid}-{tag}@example.test'
    STORE.insert('Contact', {'Name': f'Contact {tag}', 'Email': email, 'ContactCode': code, 'Phone': None,
                             'IsActive': True}, tag, rid=rid)
    return {'contactId': rid, 'textMatchField': 'Email', 'textMatchKey': email, 'numericMatchField': 'ContactCode',
            'numericMatchKey': code, 'nonMatchableField': 'IsActive'}


def st_link_parent(p, tag):
    custom = p.get('customDomain') is True
    domain = 'Custom.Inspection' if custom else p.get('domain', 'Claim')
    if domain not in SCHEMAS:
        raise BadParams(f'a link parent: unknown domain {domain}.')
    rid = make_record(domain, tag)
    rec = STORE.get(domain, rid)
    text_f, non_f = MATCH_FIELDS[domain]
    out = {'domain': domain, 'domainId': DOMAIN_ID[domain], 'id': rid, 'textMatchField': text_f,
           'textMatchKey': rec[text_f], 'nonMatchableField': non_f}
    twin = p.get('twinDomain')
    if twin is not None:
        if twin not in SCHEMAS or twin == domain:
            raise BadParams(f'a link parent: twinDomain {twin} is not a domain other than {domain}.')
        make_record(twin, tag, rid=rid)
        out['twinDomain'] = twin
        out['twinDomainId'] = DOMAIN_ID[twin]
    if custom:
        out['customDomain'] = True
    return out


def st_relationships(p, tag):
    return {'relationships': list(CODE_LISTS['ContactType'])}


def st_proposal(p, tag):
    ptype = p.get('type')
    if ptype not in TYPE_CODES:
        raise BadParams('a proposal: type must be a proposal type.')
    status = p.get('status', 'open')
    if status not in ('open', 'B', 'R', '0'):
        raise BadParams('a proposal: status must be open, B, R or 0.')
    n = p.get('locations', 0)
    if not isinstance(n, int) or n < 0:
        raise BadParams('a proposal: locations must be a non-negative integer.')
    valid = p.get('applicantValid', True)
    pid = STORE.new_id()
    applicant = f'Applicant {tag[-20:]} LLC' if valid else ''
    member_id = None
    if p.get('hasMember'):
        member_id = STORE.insert('Member', {'MemberName': applicant or f'Member {tag}', 'MemberNumber': f'M-{pid}',
                                            'IsActive': True}, tag)
    STORE.insert('Proposal', {'ProposalNumber': f'P-{pid}', 'ProposalTypeCode': TYPE_CODES[ptype],
                              'StatusCode': 'O' if status == 'open' else status, 'ApplicantName': applicant,
                              'MemberID': member_id, 'RatingStatusCode': 'C' if p.get('rated') else 'Q',
                              'PolicyID': None, 'IsProposalSetBound': bool(p.get('boundSet')),
                              'HasPendingExpiryChange': bool(p.get('pendingExpiryChange')),
                              'EffectiveDate': dt.date.today().isoformat()}, tag, rid=pid)
    loc_ids = []
    for i in range(n):
        loc_ids.append(STORE.insert('ProposalLocation', {'ProposalID': pid, 'LocationName': f'Location {i + 1}',
                                                         'Address1': f'{i + 1} Main Street', 'City': 'Portland',
                                                         'StateCode': 'OR', 'ZipCode': '97201'}, tag))
    return {'proposalId': pid, 'type': ptype, 'scheduleDomain': 'ProposalLocation', 'requiredField': 'LocationName',
            'otherScheduleDomain': 'ProposalVehicle', 'locationIds': loc_ids,
            'scheduleFilter': f'ProposalID:eq:{pid}', 'scheduleKey': 'ProposalLocationID',
            'applicantName': applicant, 'memberId': member_id}


def st_setting(p, tag):
    name, value = p.get('name'), p.get('value')
    if name != 'Service.EnableEnhancedSessionIDSecurity' or not isinstance(value, bool):
        raise BadParams('a setting: name must be Service.EnableEnhancedSessionIDSecurity and value a boolean.')
    STORE.db.execute('INSERT INTO saved_settings VALUES (?,?,?)', (tag, name, STORE.setting(name)))
    STORE.db.execute('UPDATE settings SET value=? WHERE name=?', ('true' if value else 'false', name))
    return {}


STATES = {
    'a user': st_user, 'an expired token': st_expired_token,
    'a record with associations': st_record_with_associations,
    'a record with a missing association': st_missing_association, 'records': st_records, 'a file': st_file,
    'a record with files': st_record_with_files, 'a contact': st_contact, 'a link parent': st_link_parent,
    'contact relationships': st_relationships, 'a proposal': st_proposal, 'a setting': st_setting,
}


def teardown(tag):
    db = STORE.db
    for name, value in db.execute('SELECT name, value FROM saved_settings WHERE setup_id=?', (tag,)).fetchall():
        db.execute('UPDATE settings SET value=? WHERE name=?', (value, name))
    db.execute('DELETE FROM saved_settings WHERE setup_id=?', (tag,))
    gone = db.execute('SELECT domain, id FROM records WHERE tag=?', (tag,)).fetchall()
    db.execute('DELETE FROM records WHERE tag=?', (tag,))
    proposals = [rid for d, rid in gone if d == 'Proposal']
    for pid in proposals:  # schedule records written through the API for a removed proposal
        for d in SCHEDULES:
            for (rid,) in db.execute("SELECT id FROM records WHERE domain=? AND json_extract(data, '$.ProposalID')=?",
                                     (d, pid)).fetchall():
                gone.append((d, rid))
                db.execute('DELETE FROM records WHERE domain=? AND id=?', (d, rid))
    db.execute('DELETE FROM links WHERE tag=?', (tag,))
    for d, rid in gone:
        db.execute('DELETE FROM links WHERE (ParentDomain=? AND ParentID=?) OR (ChildDomain=? AND ChildID=?)',
                   (d, rid, d, rid))
    for (uid,) in db.execute('SELECT id FROM users WHERE tag=?', (tag,)).fetchall():
        db.execute('DELETE FROM perms WHERE user_id=?', (uid,))
        db.execute('DELETE FROM tokens WHERE user_id=?', (uid,))
    db.execute('DELETE FROM users WHERE tag=?', (tag,))
    db.execute('DELETE FROM tokens WHERE tag=?', (tag,))


def provider_state(body):
    if not isinstance(body, dict):
        return 400, problem(400, 'Bad Request', 'The body must be a JSON object.', 'MalformedRequest')
    state, action, params = body.get('state'), body.get('action'), body.get('params')
    if state not in STATES:
        return 400, problem(400, 'Bad Request', f'Unknown provider state: {state}.', 'MalformedRequest')
    if not isinstance(params, dict) or not isinstance(params.get('setupId'), str) or not params['setupId']:
        return 400, problem(400, 'Bad Request', 'params.setupId is required.', 'MalformedRequest')
    tag = params['setupId']
    with STORE.lock:
        if action == 'teardown':
            teardown(tag)
            return 200, {}
        if action != 'setup':
            return 400, problem(400, 'Bad Request', "action must be 'setup' or 'teardown'.", 'MalformedRequest')
        STORE.db.execute('BEGIN')
        try:
            values = STATES[state](params, tag)
        except BadParams as e:
            STORE.db.execute('ROLLBACK')
            return 400, problem(400, 'Bad Request', str(e), 'UnsupportedParams')
        except CannotExist as e:
            STORE.db.execute('ROLLBACK')
            return 501, problem(501, 'Not Implemented', str(e), 'FixtureCannotExist')
        except Exception:
            STORE.db.execute('ROLLBACK')
            raise
        STORE.db.execute('COMMIT')
    out = {'protocol': PROTOCOL}
    out.update(values)
    return 200, out


def problem(status, title, detail, code=None):
    body = {'type': 'about:blank', 'title': title, 'status': status, 'detail': detail}
    if code:
        body['code'] = code
    return body


# --------------------------------------------------------------------------------------------
# HTTP
# --------------------------------------------------------------------------------------------
ROUTES = [
    ('GET', r'/api/Domains', 'domains'),
    ('GET', r'/api/Link/Query', 'link_query'),
    ('POST', r'/api/Link/Upsert', 'link_upsert'),
    ('POST', r'/api/Link/Remove', 'link_remove'),
    ('GET', r'/api/Quotes/Proposals/([^/]+)/BindStatus', 'bind_status'),
    ('POST', r'/api/Quotes/Proposals/([^/]+)/QueueBindQuote', 'queue_bind'),
    ('POST', r'/api/Quotes/Proposals/([^/]+)/BindQuote', 'bind_quote'),
    ('POST', r'/api/Quotes/Proposals/([^/]+)/CreateMember', 'create_member'),
    ('POST', r'/api/Quotes/Proposals/([^/]+)/Schedules/([^/]+)/UpsertMulti', 'upsert_multi'),
    ('DELETE', r'/api/Quotes/Proposals/([^/]+)/Schedules/([^/]+)/([^/]+)', 'schedule_delete'),
    ('POST', r'/api/Quotes/Proposals/([^/]+)/Schedules/([^/]+)/([^/]+)/Reinstate', 'reinstate'),
    ('GET', r'/api/([^/]+)/Query', 'query'),
    ('GET', r'/api/([^/]+)/([^/]+)/Files', 'files'),
    ('GET', r'/api/([^/]+)/([^/]+)', 'get'),
]
COMPILED = [(m, re.compile(p + r'/?'), n) for m, p, n in ROUTES]


class Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'PeerPy/1.0'

    def log_message(self, fmt, *args):  # quiet
        pass

    def send_json(self, status, body, extra_headers=None):
        if body is None:
            payload = b''
        else:
            payload = json.dumps(body, ensure_ascii=False).encode('utf-8')
        self.send_response(status)
        if body is not None:
            ctype = 'application/problem+json' if isinstance(body, dict) and 'type' in body and 'title' in body \
                else 'application/json; charset=utf-8'
            self.send_header('Content-Type', ctype)
        for k, v in (extra_headers or {}).items():
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(payload)))
        self.end_headers()
        if payload and self.command != 'HEAD':
            self.wfile.write(payload)

    def read_body(self):
        n = int(self.headers.get('Content-Length') or 0)
        if n > MAX_BODY:
            self.rfile.read(n)
            raise HttpError(413, f'The request body is larger than {MAX_BODY} bytes.')
        return self.rfile.read(n).decode('utf-8', errors='replace') if n else ''

    def handle_any(self):
        try:
            parts = urlsplit(self.path)
            path = parts.path
            q = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
            raw = self.read_body()
            if path == '/_provider-states' and self.command == 'POST':
                try:
                    body = json.loads(raw) if raw.strip() else None
                except ValueError:
                    return self.send_json(400, problem(400, 'Bad Request', 'The body is not JSON.',
                                                       'MalformedRequest'))
                status, out = provider_state(body)
                return self.send_json(status, out)
            if path in ('/', '/health') and self.command == 'GET':
                return self.send_json(200, {'Status': 'Healthy'})
            if path == '/Authentication/Authenticate' and self.command == 'POST':
                with STORE.lock:
                    status, out = api_authenticate(self.json_body(raw))
                return self.send_json(status, out)
            segs = [unquote(s) for s in path.split('/')]
            dpath = '/'.join(segs)
            for method, rx, name in COMPILED:
                m = rx.fullmatch(dpath)
                if not m:
                    continue
                if method != self.command:
                    continue
                with STORE.lock:
                    user = authenticate(self.headers)
                    status, out = self.dispatch(name, m.groups(), q, raw, user)
                return self.send_json(status, out)
            if any(rx.fullmatch(dpath) for _, rx, _ in COMPILED):
                raise HttpError(405, f'The method {self.command} is not allowed on {path}.')
            raise not_found(f'No resource at {path}.')
        except HttpError as e:
            headers = {'WWW-Authenticate': 'Token'} if e.status == 401 else None
            self.send_json(e.status, e.body if e.body is not None else {'Message': e.message}, headers)
        except Exception as e:  # a real server error
            sys.stderr.write(f'error on {self.command} {self.path}: {e!r}\n')
            import traceback
            traceback.print_exc()
            self.send_json(500, {'Message': 'An error has occurred.'})

    def json_body(self, raw):
        if not raw.strip():
            raise bad('A JSON body is required.')
        try:
            return json.loads(raw)
        except ValueError:
            raise bad('The body is not valid JSON.')

    def dispatch(self, name, g, q, raw, user):
        if name == 'domains':
            return api_domains(user, q)
        if name == 'link_query':
            return api_link_query(user, q)
        if name == 'link_upsert':
            return api_link_upsert(user, self.json_body(raw))
        if name == 'link_remove':
            return api_link_remove(user, self.json_body(raw))
        if name == 'bind_status':
            return api_bind_status(user, g[0])
        if name == 'queue_bind':
            return api_queue_bind(user, g[0], q)
        if name == 'bind_quote':
            return api_bind_quote(user, g[0], q)
        if name == 'create_member':
            return api_create_member(user, g[0], raw)
        if name == 'upsert_multi':
            return api_upsert_multi(user, g[0], g[1], q, self.json_body(raw))
        if name == 'schedule_delete':
            return api_schedule_delete(user, g[0], g[1], g[2])
        if name == 'reinstate':
            return api_reinstate(user, g[0], g[1], g[2])
        if name == 'query':
            return api_query(user, g[0], q)
        if name == 'files':
            return api_attached_files(user, g[0], g[1], q)
        if name == 'get':
            return api_get_record(user, g[0], g[1], q)
        raise not_found('No such resource.')

    do_GET = do_POST = do_DELETE = do_PUT = do_PATCH = handle_any


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    global STORE
    ap = argparse.ArgumentParser(description='Python standard-library peer of the RFLPS interface')
    ap.add_argument('--port', type=int, default=8080)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='peer-py-')
    STORE = Store(os.path.join(tmp, 'store.sqlite3'))
    server = Server(('127.0.0.1', args.port), Handler)
    print(f'listening on http://127.0.0.1:{server.server_address[1]}', flush=True)

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        try:
            STORE.db.close()
        except Exception:
            pass
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == '__main__':
    main()
