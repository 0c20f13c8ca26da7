// A YAML writer for the generated files, so that they read like hand-written ones:
// keys in a chosen order, plain scalars where YAML allows them (`for: 10m`, not
// `for: "10m"`), `|` blocks for multi-line text and `>-` folding for long lines.
// jsonnet's own std.manifestYamlDoc quotes every string and sorts every key.
local keyOrder = [
  // rule files
  'groups', 'name', 'interval', 'rules', 'alert', 'record', 'expr', 'for', 'keep_firing_for', 'labels', 'annotations',
  'summary', 'description', 'runbook_url',
  // Alertmanager
  'global', 'route', 'receiver', 'group_by', 'group_wait', 'group_interval', 'repeat_interval', 'matchers', 'routes',
  'inhibit_rules', 'source_matchers', 'target_matchers', 'equal', 'receivers',
];

local rank(key) = (
  local i = std.find(key, keyOrder);
  if std.length(i) > 0 then i[0] else std.length(keyOrder)
);

local orderedFields(o) = std.sort(std.objectFields(o), function(k) [rank(k), k]);

local indicators = std.stringChars('-?:,[]{}#&*!|>\'"%@`');
local reserved = ['', '~', 'null', 'true', 'false', 'yes', 'no', 'on', 'off', 'y', 'n'];

local all(list) = std.foldl(function(acc, x) acc && x, list, true);

// Occurrences of `sub` in `s`. std.strReplace is native in every jsonnet;
// std.findSubstr is written in jsonnet and far too slow for whole rule files.
local count(s, sub) = (std.length(s) - std.length(std.strReplace(s, sub, ''))) / std.length(sub);
local contains(s, sub) = count(s, sub) > 0;

// A double-quoted scalar. JSON's escapes are YAML's; the common case (no control
// characters) is escaped natively, the rest by std.escapeStringJson.
local quoted(s) =
  if all([std.codepoint(ch) >= 32 for ch in std.stringChars(s)])
  then '"' + std.strReplace(std.strReplace(s, '\\', '\\\\'), '"', '\\"') + '"'
  else std.escapeStringJson(s);

// Numbers, dates and times YAML 1.1 might read as such: quoted.
local looksNumeric(s) = std.member('0123456789+-.', std.stringChars(s)[0])
                        && all([std.member('0123456789.+-_:eExXoOabcdefABCDEFT', ch) for ch in std.stringChars(s)]);

local plain(s) =
  !std.member(reserved, std.asciiLower(s))
  && !std.member(indicators, std.stringChars(s)[0])
  && !std.member([' ', '\t'], std.stringChars(s)[0])
  && !std.member([' ', '\t'], std.stringChars(s)[std.length(s) - 1])
  && !contains(s, ': ')
  && !contains(s, ' #')
  && !contains(s, '\t')
  && !std.endsWith(s, ':')
  && !looksNumeric(s)
  && all([std.codepoint(ch) >= 32 && std.codepoint(ch) != 127 for ch in std.stringChars(s)]);

// The words of `s`, where a Go template action (`{{ ... }}`) or a raw string
// (`...`) counts as one word: folding never splits them. (Recursion rather than
// std.foldl with slices: both are written in jsonnet and slow on long texts.)
local words(s) = (
  local tokens = std.split(s, ' ');
  local open(w) = count(w, '{{') > count(w, '}}') || count(w, '`') % 2 == 1;
  local go(i, current, done) =
    if i == std.length(tokens) then done + [current]
    else if open(current) then go(i + 1, current + ' ' + tokens[i], done) tailstrict
    else go(i + 1, tokens[i], done + [current]) tailstrict;
  go(1, tokens[0], [])
);

// The words of `s` in lines of at most `width` characters (a longer word stands alone).
local fold(s, width) = (
  local ws = words(s);
  local go(i, line, done) =
    if i == std.length(ws) then done + [line]
    else if std.length(line) + 1 + std.length(ws[i]) <= width then go(i + 1, line + ' ' + ws[i], done) tailstrict
    else go(i + 1, ws[i], done + [line]) tailstrict;
  go(1, ws[0], [])
);

local foldable(s) = std.length(s) > 100
                    && !contains(s, '\n')
                    && !contains(s, '  ')
                    && !contains(s, '\t')
                    && !std.startsWith(s, ' ') && !std.endsWith(s, ' ')
                    && std.length(fold(s, 80)) > 1;

local pad(n) = std.repeat(' ', n);

// A scalar after `key: ` or `- ` at indentation `indent`.
local scalar(v, indent) =
  if std.isString(v) then (
    if contains(v, '\n') && !contains(v, '\r') && !std.startsWith(v, ' ') then (
      local body = if std.endsWith(v, '\n') then v[:std.length(v) - 1] else v;
      local chomp = if std.endsWith(v, '\n\n') then '+' else if std.endsWith(v, '\n') then '' else '-';
      '|' + chomp + std.join('', ['\n' + (if line == '' then '' else pad(indent + 2) + line) for line in std.split(body, '\n')])
    )
    else if foldable(v) then '>-' + std.join('', ['\n' + pad(indent + 2) + line for line in fold(v, 96 - indent)])
    else if plain(v) then v
    else quoted(v)
  )
  else if std.isBoolean(v) then (if v then 'true' else 'false')
  else if v == null then 'null'
  else std.toString(v);

local isCollection(v) = (std.isObject(v) && std.length(v) > 0) || (std.isArray(v) && std.length(v) > 0);

local value(v, indent) =
  if std.isObject(v) then (
    if std.length(v) == 0 then '{}'
    else std.join('\n', [
      local x = v[k];
      pad(indent) + k + ':' + (
        if std.isObject(x) && std.length(x) > 0 then '\n' + value(x, indent + 2)
        else if std.isArray(x) && std.length(x) > 0 then '\n' + value(x, indent + 2)
        else ' ' + (if std.isArray(x) then '[]' else if std.isObject(x) then '{}' else scalar(x, indent))
      )
      for k in orderedFields(v)
    ])
  )
  else if std.isArray(v) then (
    if std.length(v) == 0 then '[]'
    else std.join('\n', [
      pad(indent) + '- ' + (
        // The collection's first line goes after the dash: its indentation cut
        // off with the native std.substr (std.lstripChars would copy the whole
        // text once per space).
        if isCollection(x) then (local text = value(x, indent + 2); std.substr(text, indent + 2, std.length(text)))
        else scalar(x, indent)
      )
      for x in v
    ])
  )
  else scalar(v, indent);

{
  // The YAML document for `v` (an object), ending in a newline.
  manifest(v):: value(v, 0) + '\n',
}
