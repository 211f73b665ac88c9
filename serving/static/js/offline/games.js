// The games the page can play without the server: their rules engines, by the key of the game
// and its options (the checkpoints folder's name: Stereo Go's 9x9 board is
// ``stereo_go-board-9x9``, its default cylinder ``stereo_go``).

import { fangqi } from './fangqi.js';
import { jiugong } from './jiugong.js';
import { stereoGo } from './stereo_go.js';

const [cylinder, go9x9] = [stereoGo(), stereoGo({ board: '9x9' })];

export const GAMES = { jiugong, fangqi, stereo_go: cylinder, 'stereo_go-board-9x9': go9x9 };
