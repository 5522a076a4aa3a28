import { ATTEMPT_ANALYSIS_COLUMNS, ROUTE_ANALYSIS_COLUMNS } from '../../../domain/analytics-columns';
import { httpHandler } from '../../http-handler';
import { getColumnDefinitions as endpoint } from './endpoint';

export const handler = httpHandler(endpoint, async () => ({
  route_analysis_column_definitions: { ...ROUTE_ANALYSIS_COLUMNS },
  attempt_analysis_column_definitions: { ...ATTEMPT_ANALYSIS_COLUMNS },
}));
