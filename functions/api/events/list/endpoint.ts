import { Id, MAX_PAGE_ROWS, PAGE_BYTES_NOTE, queryIntegerOr, SafeText } from '../../../models/common';
import { SUBSCRIBABLE_EVENTS } from '../../../models/event-catalog';
import * as z from '../../../shared/zod';
import { ok } from '../../define';
import { eventsEndpoint } from '../schemas';

/** Events per page of GET /events without `limit`. */
export const EVENT_FEED_DEFAULT_LIMIT = 100;

export const ListEventsQuery = /* @__PURE__ */ z.object({
  after: /* @__PURE__ */ z.withMeta(
    /* @__PURE__ */ z.optional(/* @__PURE__ */ SafeText({ min: 1, max: 200 })),
    {
      description:
        'the `next_cursor` of the previous page, or the `cursor` of an event: the events after it; from the oldest kept event when absent',
    },
  ),
  limit: /* @__PURE__ */ z.withMeta(
    /* @__PURE__ */ queryIntegerOr(1, MAX_PAGE_ROWS, EVENT_FEED_DEFAULT_LIMIT),
    {
      description: `most events per page, 1..${MAX_PAGE_ROWS}; ${EVENT_FEED_DEFAULT_LIMIT} when absent. ${/* @__PURE__ */ PAGE_BYTES_NOTE.replace('`next_token`', '`next_cursor`')}`,
    },
  ),
  dc_id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(Id), {
    description: 'only the events of this DC of the account',
  }),
  route_id: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(Id), {
    description: 'only the events of this route',
  }),
  type: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.optional(/* @__PURE__ */ z.enum(SUBSCRIBABLE_EVENTS)), {
    description: 'only the events of this type',
  }),
});

/**
 * An event of the feed: the body its webhook delivery carries (one of the `webhooks` section's bodies) and
 * its cursor. Described here rather than as a union of the bodies: each body already lists its fields.
 */
export const FeedEvent = /* @__PURE__ */ z.withMeta(
  /* @__PURE__ */ z.catchall(
    /* @__PURE__ */ z.object({
      event: /* @__PURE__ */ z.enum(SUBSCRIBABLE_EVENTS),
      hook_timestamp_millis: /* @__PURE__ */ z.int(),
      dc_id: /* @__PURE__ */ z.string(),
      route_id: /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()),
      event_id: /* @__PURE__ */ z.string(),
      sequence: /* @__PURE__ */ z.withMeta(
        /* @__PURE__ */ z.nullable(/* @__PURE__ */ z.int().check(/* @__PURE__ */ z.minimum(1))),
        {
          description:
            'the event’s place among its route’s events: 1, 2, 3 ... with no gaps (a refused revision’s ROUTE_IMPORT_FAILED included); null for an event of no route’s own (a failed import’s ROUTE_IMPORT_FAILED) or written before sequences',
        },
      ),
      cursor: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.string(), {
        description: 'opaque: `after` this cursor reads the events after this one',
      }),
    }),
    /* @__PURE__ */ z.unknown(),
  ),
  {
    id: 'FeedEvent',
    description:
      'the body the event’s webhook delivery carries (the `webhooks` section gives each type’s fields), and its `cursor`',
  },
);

export const listEvents = /* @__PURE__ */ eventsEndpoint('GET /events', {
  operationId: 'listEvents',
  module: import.meta.url,
  summary: 'Every event of the account in the order the feed took them (kept 30 days), after a cursor',
  request: { query: ListEventsQuery },
  responses:
    import.meta.responseSchemas !== false &&
    ok(
      'a page of events',
      z.object({
        events: /* @__PURE__ */ z.array(FeedEvent),
        next_cursor: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.nullable(/* @__PURE__ */ z.string()), {
          description:
            'the `after` of the next page: after the last event this page read; poll with it for newer events. null only while the account has no event yet',
        }),
        has_more: /* @__PURE__ */ z.withMeta(/* @__PURE__ */ z.boolean(), {
          description: 'true when the page ended before the end of the feed: read the next one at once',
        }),
      }),
    ),
  errorCodes: [1002, 8000, 8001],
});
