import { JsonCodec2, JsonShapeDeserializer2 } from '@smithy/core/protocols';
import { NormalizedSchema } from '@smithy/core/schema';
import { fromBase64 } from '@smithy/core/serde';
import type { $ShapeDeserializer, Schema } from '@smithy/types';

const ATTRIBUTE_VALUE = 'com.amazonaws.dynamodbstreams#AttributeValue';

/** The wire form of an attribute value, decoded in place: binaries become bytes, the rest is already final. */
function readAttributeValue(value: Record<string, unknown>, decodeBase64: (b: string) => Uint8Array): Record<string, unknown> {
  if (typeof value.B === 'string') value.B = decodeBase64(value.B);
  if (Array.isArray(value.BS)) value.BS = value.BS.map((b: string) => decodeBase64(b));
  if (Array.isArray(value.L)) for (const item of value.L) readAttributeValue(item as Record<string, unknown>, decodeBase64);
  if (typeof value.M === 'object' && value.M !== null) {
    for (const item of Object.values(value.M)) readAttributeValue(item as Record<string, unknown>, decodeBase64);
  }
  return value;
}

/**
 * Reads attribute values (the `Keys`, `NewImage` and `OldImage` of stream records) straight
 * from the parsed JSON instead of walking the union schema member by member, as the DynamoDB
 * client's own codec does for its attribute values. The output is what the default
 * deserializer produces, at about a quarter of the CPU for a page of `GetRecords` (`npm run bench:decode`).
 */
class StreamRecordsDeserializer extends JsonShapeDeserializer2 {
  protected override _read(schema: Schema, value: unknown): unknown {
    if (typeof value === 'object' && value !== null) {
      const ns = NormalizedSchema.of(schema);
      if (ns.isStructSchema() && ns.getName(true) === ATTRIBUTE_VALUE) {
        return readAttributeValue(value as Record<string, unknown>, this.serdeContext?.base64Decoder ?? fromBase64);
      }
    }
    return super._read(schema, value);
  }
}

/** The DynamoDB Streams client's JSON codec with the fast attribute-value path; see {@link streamsClient}. */
export class StreamRecordsJsonCodec extends JsonCodec2 {
  constructor() {
    // The settings the client's protocol uses by default (epoch-seconds timestamps, no JSON names).
    super({ timestampFormat: { useTrait: true, default: 7 }, jsonName: false });
  }

  override createDeserializer(): $ShapeDeserializer<string> {
    const deserializer = new StreamRecordsDeserializer(this.settings);
    if (this.serdeContext !== undefined) deserializer.setSerdeContext(this.serdeContext);
    return deserializer;
  }
}
