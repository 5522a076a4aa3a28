/**
 * The bodies POST /dcs/{dc_id}/drivers refuses with 1006 (test/e2e/drivers.test.ts): what is wrong, the body,
 * and the start of the message that names the field.
 */
export const REFUSED_DRIVER_BODIES: [string, unknown, RegExp][] = [
  ['a missing driver_id', { driver_name: 'x' }, /^driver_id: /],
  ['a missing driver_name', { driver_id: 'x' }, /^driver_name: /],
  ['a numeric driver_id', { driver_id: 42, driver_name: 'x' }, /^driver_id: .*expected string/],
  ['an array driver_name', { driver_id: 'x', driver_name: ['x'] }, /^driver_name: .*expected string/],
  ['an empty driver_id', { driver_id: '', driver_name: 'x' }, /^driver_id: /],
  ['an empty driver_name', { driver_id: 'x', driver_name: '' }, /^driver_name: /],
  ['a blank driver_name', { driver_id: 'x', driver_name: '   ' }, /^driver_name: must not be blank/],
  ['a driver_id of 129 characters', { driver_id: 'i'.repeat(129), driver_name: 'x' }, /^driver_id: .*128/],
  [
    'a driver_name of 201 characters',
    { driver_id: 'x', driver_name: 'n'.repeat(201) },
    /^driver_name: .*200/,
  ],
  ['a driver_id with a slash', { driver_id: 'a/b', driver_name: 'x' }, /^driver_id: must not contain/],
  ['a driver_id of ".."', { driver_id: '..', driver_name: 'x' }, /^driver_id: must not be "\." or "\.\."/],
  [
    'a driver_id ending in a space',
    { driver_id: 'a ', driver_name: 'x' },
    /^driver_id: must not start or end with whitespace/,
  ],
  ['a driver_name with a control character', { driver_id: 'x', driver_name: 'a\u0000b' }, /^driver_name: /],
  [
    'a login_token shorter than 39 characters',
    { driver_id: 'x', driver_name: 'x', login_token: 'thirty-eight-characters-are-too-few-xx' },
    /^login_token: must have at least 39 characters/,
  ],
  [
    'a login_token that is not a string',
    { driver_id: 'x', driver_name: 'x', login_token: 12345678 },
    /^login_token: /,
  ],
  ['a JSON array body', [], /^request body: /],
  ['a JSON string body', '"driver"', /^request body: /],
];

/**
 * The bodies PATCH and PUT .../finish-routes refuse (they take none, or `{}`): what is wrong, the driver the
 * test makes for it, the body, and the answer's status and code.
 */
export const REFUSED_FINISH_BODIES: [string, string, unknown, number, number][] = [
  ['malformed JSON', 'body-1', '{"timestamp": ', 400, 1005],
  ['a JSON body (it takes none)', 'body-2', { timestamp: 1_700_000_000_000 }, 400, 1006],
  ['a JSON null', 'body-3', 'null', 400, 1006],
  ['a body over 5 MB', 'body-4', { padding: 'p'.repeat(5.5 * 1024 * 1024) }, 413, 1004],
];
