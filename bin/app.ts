import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { defineDeliveryRoutes, readConfig } from '../lib/delivery-routes';

const app = new App();
defineDeliveryRoutes(app, readConfig(app));
// cdk-nag 3 runs as a policy-validation plugin: synth fails on any unacknowledged AwsSolutions error.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
