// What the real-sky maps are to the rest of the service: their preview products, their entry in the product
// catalogue (titles and units of the STAC assets) and their kind in the output estimate.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outputKindOf } from '../../src/workflows/outputSize.js';
import { previewProduct, previewProductForms } from '../../src/workflows/previewProducts.js';
import { productInfo } from '../../src/workflows/productCatalogue.js';

const years = { start_year: 2019, end_year: 2020 };

test('previews: realsky-annual sums the 12 real-sky months, realsky-month-{mon} is one; eemt jobs only', () => {
  const annual = previewProduct('eemt', 'realsky-annual', years)!;
  assert.equal(annual.unit, 'Wh m-2 yr-1');
  assert.equal(annual.files.length, 12);
  assert.ok(annual.files.every((f) => /^global\/monthly_realsky\/total_sun_[a-z]{3}_sum\.tif$/.test(f)));
  assert.deepEqual(previewProduct('eemt', 'realsky-month-jul', years)!.files, ['global/monthly_realsky/total_sun_jul_sum.tif']);
  assert.equal(previewProduct('eemt', 'realsky-month-xyz', years), null);
  assert.equal(previewProduct('sol', 'realsky-annual', {}), null);
  assert.match(previewProductForms('eemt'), /realsky-annual, realsky-month-\{jan\.\.dec\}/);
  assert.doesNotMatch(previewProductForms('sol'), /realsky/);
});

test('catalogue and output kinds: the real-sky maps are monthly summary products in Wh m-2 month-1; the beam parts are monthly sums', () => {
  assert.deepEqual(productInfo('global/monthly_realsky/total_sun_jan_sum.tif'), {
    title: 'Monthly real-sky global irradiation, jan',
    unit: 'Wh m-2 month-1',
    group: 'summary',
  });
  assert.match(productInfo('global/monthly_realsky/flat_total_sun_dec_sum.tif')!.title, /horizontal unshaded surface \(observed\), dec$/);
  // the beam parts are working files, not products
  assert.equal(productInfo('.beam-parts/total_sun_jan_beam_sum.tif'), null);
  for (const path of ['global/monthly_realsky/total_sun_jan_sum.tif', 'global/monthly_realsky/flat_total_sun_jan_sum.tif', '.beam-parts/flat_total_sun_jan_beam_sum.tif']) {
    assert.equal(outputKindOf(path), 'monthly-sums', path);
  }
});
