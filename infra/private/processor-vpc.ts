import type { RemovalPolicy } from 'aws-cdk-lib';
import { FlowLogDestination, SubnetType, Vpc } from 'aws-cdk-lib/aws-ec2';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/**
 * The processor's VPC when none is given: public subnets over two AZs and no NAT gateway (the
 * tasks reach AWS through public IPs), its flow log kept and removed like the processor's own logs.
 */
export function publicProcessorVpc(scope: Construct, retention: RetentionDays, removalPolicy: RemovalPolicy): Vpc {
  const vpc = new Vpc(scope, 'Vpc', {
    maxAzs: 2,
    natGateways: 0,
    subnetConfiguration: [{ name: 'public', subnetType: SubnetType.PUBLIC }],
  });
  const flowLogs = new LogGroup(scope, 'VpcFlowLogs', { retention, removalPolicy });
  vpc.addFlowLog('FlowLog', { destination: FlowLogDestination.toCloudWatchLogs(flowLogs) });
  return vpc;
}
