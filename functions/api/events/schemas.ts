import { endpointGroup } from '../define';

export const TAG = 'Events';

/** The event feed's endpoints: an API key's, read-only. */
export const eventsEndpoint = endpointGroup({ tag: TAG });
